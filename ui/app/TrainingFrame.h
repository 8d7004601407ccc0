#pragma once
// What the Training tab shows of a run, posted by TrainingWorker from its thread: an immutable
// copy (the attention snapshots shared, never copied twice), at most about ten a second.

#include <QMetaType>
#include <memory>
#include <string>
#include <vector>

#include "train/Trainer.h"

namespace headscope::ui {

struct TrainingFrame {
    train::TrainConfig config;
    long long steps = 0;
    bool running = false;
    long long parameters = 0;
    double steps_per_second = 0;  // while running; 0 otherwise
    std::vector<train::Evaluation> evaluations;
    std::vector<std::shared_ptr<const train::AttentionSnapshot>> snapshots;  // oldest first
    std::vector<int> probe;
};

using TrainingFramePtr = std::shared_ptr<const TrainingFrame>;

}  // namespace headscope::ui

Q_DECLARE_METATYPE(headscope::ui::TrainingFramePtr)
