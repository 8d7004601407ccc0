#pragma once
// Runs a train::Trainer on its own thread (never the GUI's): Start runs steps in chunks of about
// 30 ms, returning to the thread's event loop between chunks so that Pause, Step and Reset are
// taken at once; a TrainingFrame is posted after a chunk when 100 ms have passed (so the GUI
// redraws at most ~10 times a second), and after every Pause, Step and Reset. Start may be given
// a condition to stop at (a lesson's "until"): the run pauses at the very step it holds, so the
// step count, the last evaluation and the curves agree. Call its slots through queued
// connections or QMetaObject::invokeMethod.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "TrainingFrame.h"

namespace headscope::ui {

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    explicit TrainingWorker(QObject* parent = nullptr);
    ~TrainingWorker() override;

    // A new run with these settings (they must validate); stops a running one. Posts a frame.
    void reset(const train::TrainConfig& config);
    // Asked after every step: the steps so far, the evaluation that step made (null when it made
    // none) and the heads per layer; true pauses the run there.
    using StopWhen = std::function<bool(long long steps, const train::Evaluation* evaluated, int heads)>;
    void start(StopWhen stop = {});
    void pause();
    void step(int count);
    // Saves the model as a GPT-2 folder; emits saved (error empty on success).
    void save(const QString& directory);

signals:
    void frameReady(headscope::ui::TrainingFramePtr frame);
    void saved(const QString& directory, const QString& error);

private:
    void runChunk();
    void post();
    void syncSnapshots();

    std::unique_ptr<train::Trainer> trainer_;
    std::vector<std::shared_ptr<const train::AttentionSnapshot>> snapshots_;
    bool running_ = false;
    StopWhen stop_;  // of the running start(), if given
    bool chunk_queued_ = false;
    QElapsedTimer since_post_, since_start_;
    long long steps_at_start_ = 0;
};

}  // namespace headscope::ui
