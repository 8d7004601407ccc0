#pragma once
// Help > About: what HeadScope is and the versions it was built with.

#include <QDialog>
#include <QString>

namespace headscope::ui {

class AboutDialog : public QDialog {
    Q_OBJECT

public:
    explicit AboutDialog(QWidget* parent = nullptr);

    // "HeadScope 0.1.0 · Qt 6.4.2 (built with 6.4.2) · QCustomPlot 2.1.0 · Eigen 3.4.0"
    static QString versionsText();
};

}  // namespace headscope::ui
