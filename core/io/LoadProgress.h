#pragma once
// Progress of opening a checkpoint (io::loadCheckpoint): a fraction 0..1 that never decreases
// and reaches 1 when the model is ready, with the stage in words ("reading shard 2 of 3",
// "converting layer 5 of 16"). The callback runs on the loading thread; returning false cancels
// the load, which then throws LoadCancelled (an IoError) at the next stage.

#include <algorithm>
#include <functional>
#include <string>

#include "io/IoError.h"

namespace headscope::io {

using LoadProgress = std::function<bool(double fraction, const std::string& stage)>;

struct LoadCancelled : IoError {
    LoadCancelled() : IoError("opening the model was cancelled") {}
};

// Keeps the fraction monotonic and in [0, 1]; a null callback reports nothing.
class ProgressReporter {
public:
    explicit ProgressReporter(LoadProgress progress) : progress_(std::move(progress)) {}
    void report(double fraction, const std::string& stage) {
        last_ = std::clamp(fraction, last_, 1.0);
        if (progress_ && !progress_(last_, stage)) throw LoadCancelled();
    }
    // Stage `step` (1-based) of `steps` inside [from, to].
    void step(double from, double to, int step, int steps, const std::string& stage) {
        report(from + (to - from) * double(step) / std::max(1, steps), stage);
    }

private:
    LoadProgress progress_;
    double last_ = 0;
};

}  // namespace headscope::io
