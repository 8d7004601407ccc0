#include "train/TrainConfig.h"

#include <cmath>
#include <stdexcept>

namespace headscope::train {

namespace {

std::string range(const char* what, int value, int low, int high) {
    if (value >= low && value <= high) return {};
    return std::string(what) + " must be between " + std::to_string(low) + " and " + std::to_string(high) +
           ", not " + std::to_string(value);
}

}  // namespace

std::string TrainConfig::problem() const {
    for (const std::string& p :
         {range("layers", layers, 1, kMaxLayers), range("d_model", d_model, 2, kMaxDModel),
          range("heads", heads, 1, d_model), range("vocabulary", vocab, 4, kMaxVocab),
          range("context", context, 4, kMaxContext), range("batch", batch, 1, 4096),
          range("eval_every", eval_every, 1, 1000000), range("eval_sequences", eval_sequences, 1, 65536),
          range("max_snapshots", max_snapshots, 2, 100000), range("min_repeat", min_repeat, 2, kMaxContext)})
        if (!p.empty()) return p;
    if (d_model % heads != 0)
        return "d_model " + std::to_string(d_model) + " is not divisible by " + std::to_string(heads) + " heads";
    if (max_repeat < min_repeat)
        return "the longest repeat (" + std::to_string(max_repeat) + ") is shorter than the shortest (" +
               std::to_string(min_repeat) + ")";
    if (2 * max_repeat > context)
        return "a context of " + std::to_string(context) + " tokens cannot hold two copies of a " +
               std::to_string(max_repeat) + "-token string: raise the context to " + std::to_string(2 * max_repeat) +
               " or shorten the repeat";
    if (two_copies && max_repeat > vocab)
        return "a string of " + std::to_string(max_repeat) + " distinct tokens needs a vocabulary of at least " +
               std::to_string(max_repeat) + " tokens, not " + std::to_string(vocab);
    if (!std::isfinite(learning_rate) || learning_rate <= 0 || learning_rate > 1)
        return "the learning rate must be above 0 and at most 1";
    if (!std::isfinite(weight_decay) || weight_decay < 0 || weight_decay * learning_rate >= 1)
        return "the weight decay must be at least 0 and below 1 / learning rate";
    if (warmup_steps < 0 || warmup_steps > 1000000) return "the warm-up must be between 0 and 1000000 steps";
    if (!std::isfinite(init_std) || init_std <= 0 || init_std > 1)
        return "the initial weights' standard deviation must be above 0 and at most 1";
    return {};
}

double TrainConfig::stepMultiplyAdds() const {
    const double rows = double(batch) * context, d = d_model;
    const double attention = double(batch) * heads * double(context) * context * headDim() * 2;  // Q K^T and W V
    const double per_layer = rows * d * 3 * d + attention + rows * d * d + (mlp ? 2 * rows * d * mlpWidth() : 0);
    const double forward = layers * per_layer + rows * d * vocab;
    return 3 * forward;
}

void TrainConfig::validate() const {
    const std::string p = problem();
    if (!p.empty()) throw std::invalid_argument(p);
}

}  // namespace headscope::train
