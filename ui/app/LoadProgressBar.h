#pragma once
// The status bar's progress while a model opens: a bar, the stage ("mapping layer 5 of 16")
// and Cancel. Shown from the first progress below 1 until the load reaches 1 or finish() is
// called (the load failed or was cancelled). Fed by LoadProgressRelay's queued signal.

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace headscope::ui {

class LoadProgressBar : public QWidget {
    Q_OBJECT
public:
    explicit LoadProgressBar(QWidget* parent = nullptr);

    int percent() const;
    QString stage() const;

public slots:
    void showProgress(double fraction, const QString& stage);
    void finish();

private:
    QProgressBar* bar_;
    QLabel* stage_;
    QPushButton* cancel_;
};

}  // namespace headscope::ui
