#pragma once
// Carries io::loadCheckpoint's progress (io/LoadProgress.h) from the loading worker to the window:
// reporter() is the callback the worker passes to the loader; each call emits progress(), which
// reaches receivers in the GUI thread as a queued signal. cancel() makes the running load stop at
// its next stage (it then fails with "opening the model was cancelled"). One per application.

#include <QObject>
#include <QString>
#include <atomic>

#include "io/LoadProgress.h"

namespace headscope::ui {

class LoadProgressRelay : public QObject {
    Q_OBJECT
public:
    static LoadProgressRelay& instance();
    // For the worker: a new load (its cancel flag cleared) reporting here.
    io::LoadProgress reporter();

public slots:
    void cancel() { cancelled_ = true; }

signals:
    void progress(double fraction, const QString& stage);

private:
    LoadProgressRelay() = default;
    std::atomic<bool> cancelled_{false};
};

}  // namespace headscope::ui
