#pragma once
// The heads of a loaded model that are knocked out, each restored with one click, the mode
// (zero or mean) of all of them, and "Restore all". Lives in the Loaded model dock; reads and
// edits only the Session's ablation.

#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace headscope::ui {

class Session;

class AblationList : public QWidget {
    Q_OBJECT

public:
    AblationList(Session* session, QWidget* parent = nullptr);

    QListWidget* list() const { return list_; }  // one item per head off ("1.2"), click: restore
    QComboBox* mode() const { return mode_; }

private:
    void refresh();

    Session* session_;
    QLabel* note_ = nullptr;
    QListWidget* list_ = nullptr;
    QComboBox* mode_ = nullptr;
    QPushButton* restore_all_ = nullptr;
};

}  // namespace headscope::ui
