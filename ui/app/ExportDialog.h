#pragma once
// Picks what to export and where; the functions of Export.h do the work
// (the same ones the command line and the tests call).

#include <QDialog>
#include <QString>

#include "Export.h"

class QButtonGroup;
class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace headscope::ui {

struct ExportRequest {
    enum class What { CurrentView, OneHead, AllHeads, View };
    What what = What::AllHeads;
    ViewKind view = ViewKind::SpectrumQK;  // for View
    int head = 0;  // for OneHead and the circuit views, 0-based
    ImageFormat format = ImageFormat::Png;
    double scale = 2.0;  // PNG pixel scale (1, 2 or 4); vector formats ignore it
    QString path;
};

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // heads: how many heads the analysis has; head: the one preselected for OneHead.
    ExportDialog(int heads, int head, QWidget* parent = nullptr);

    ExportRequest request() const;
    void setPath(const QString& path);

    void accept() override;  // remembers the choices for next time

private:
    void formatChanged();
    void browse();
    void updateOk();

    QButtonGroup* what_ = nullptr;
    QSpinBox* head_ = nullptr;
    QComboBox* view_ = nullptr;
    QComboBox* format_ = nullptr;
    QComboBox* scale_ = nullptr;
    QLineEdit* path_ = nullptr;
    QPushButton* ok_ = nullptr;
};

}  // namespace headscope::ui
