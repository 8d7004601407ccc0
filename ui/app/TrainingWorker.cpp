#include "TrainingWorker.h"

#include <QMetaObject>
#include <exception>
#include <map>

#include "train/SaveGpt2.h"

namespace headscope::ui {

namespace {
constexpr qint64 kChunkMs = 30;   // steps between looks at the event loop
constexpr qint64 kFrameMs = 100;  // at most ~10 frames a second
}  // namespace

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<TrainingFramePtr>("headscope::ui::TrainingFramePtr");
}

TrainingWorker::~TrainingWorker() = default;

void TrainingWorker::reset(const train::TrainConfig& config) {
    running_ = false;
    trainer_ = std::make_unique<train::Trainer>(config);
    snapshots_.clear();
    post();
}

void TrainingWorker::start(StopWhen stop) {
    if (!trainer_) return;
    stop_ = std::move(stop);
    if (running_) return;
    running_ = true;
    since_start_.start();
    steps_at_start_ = trainer_->steps();
    since_post_.start();
    if (!chunk_queued_) {
        chunk_queued_ = true;
        QMetaObject::invokeMethod(this, &TrainingWorker::runChunk, Qt::QueuedConnection);
    }
}

void TrainingWorker::pause() {
    running_ = false;
    stop_ = {};
    post();
}

void TrainingWorker::step(int count) {
    if (!trainer_) return;
    running_ = false;
    for (int i = 0; i < count; ++i) trainer_->step();
    post();
}

void TrainingWorker::save(const QString& directory) {
    if (!trainer_) return;
    try {
        train::saveGpt2Folder(trainer_->config(), trainer_->layout(), trainer_->parameters(), directory.toStdString());
        emit saved(directory, {});
    } catch (const std::exception& e) {
        emit saved(directory, QString::fromStdString(e.what()));
    }
}

void TrainingWorker::runChunk() {
    chunk_queued_ = false;
    if (!running_ || !trainer_) return;
    QElapsedTimer chunk;
    chunk.start();
    while (chunk.elapsed() < kChunkMs) {
        const std::size_t evaluations = trainer_->evaluations().size();
        trainer_->step();
        const train::Evaluation* evaluated = trainer_->evaluations().size() > evaluations ? &trainer_->evaluations().back() : nullptr;
        if (stop_ && stop_(trainer_->steps(), evaluated, trainer_->config().heads)) {
            pause();  // at this step: the frame's steps are its evaluation's
            return;
        }
    }
    if (since_post_.elapsed() >= kFrameMs) post();
    chunk_queued_ = true;
    QMetaObject::invokeMethod(this, &TrainingWorker::runChunk, Qt::QueuedConnection);
}

// The trainer thins its snapshots; share the ones already copied, copy only new ones.
void TrainingWorker::syncSnapshots() {
    std::map<long long, std::shared_ptr<const train::AttentionSnapshot>> known;
    for (const auto& s : snapshots_) known[s->step] = s;
    std::vector<std::shared_ptr<const train::AttentionSnapshot>> now;
    for (const train::AttentionSnapshot& s : trainer_->snapshots()) {
        const auto found = known.find(s.step);
        now.push_back(found != known.end() ? found->second : std::make_shared<const train::AttentionSnapshot>(s));
    }
    snapshots_ = std::move(now);
}

void TrainingWorker::post() {
    if (!trainer_) return;
    syncSnapshots();
    auto frame = std::make_shared<TrainingFrame>();
    frame->config = trainer_->config();
    frame->steps = trainer_->steps();
    frame->running = running_;
    frame->parameters = trainer_->layout().size();
    if (running_ && since_start_.elapsed() > 0)
        frame->steps_per_second = double(trainer_->steps() - steps_at_start_) * 1000.0 / double(since_start_.elapsed());
    frame->evaluations = trainer_->evaluations();
    frame->snapshots = snapshots_;
    frame->probe = trainer_->probe();
    since_post_.start();
    emit frameReady(std::move(frame));
}

}  // namespace headscope::ui
