#include "train/RepeatData.h"

#include <algorithm>
#include <numeric>

namespace headscope::train {

namespace {

// Uniform integer in [0, count) from one 53-bit draw (no modulo bias worth naming at these sizes).
int uniformIndex(Rng& rng, int count) {
    return std::min(count - 1, static_cast<int>(rng.uniform01() * count));
}

}  // namespace

void repeatedSequence(Rng& rng, int vocab, int n, int length, int* out) {
    std::vector<int> pool(static_cast<std::size_t>(vocab));
    std::iota(pool.begin(), pool.end(), 0);
    for (int i = 0; i < length; ++i) std::swap(pool[i], pool[i + uniformIndex(rng, vocab - i)]);
    for (int t = 0; t < n; ++t) out[t] = pool[t % length];
}

RepeatData::RepeatData(const TrainConfig& c, std::uint64_t seed)
    : vocab_(c.vocab), n_(c.context), min_(c.min_repeat), max_(c.max_repeat), rng_(seed) {
    c.validate();
}

Batch RepeatData::next(int sequences) {
    Batch batch;
    batch.sequences = sequences;
    batch.n = n_;
    batch.ids.resize(static_cast<std::size_t>(sequences) * n_);
    for (int b = 0; b < sequences; ++b) {
        const int length = min_ + uniformIndex(rng_, max_ - min_ + 1);
        batch.repeat.push_back(length);
        repeatedSequence(rng_, vocab_, n_, length, batch.ids.data() + std::size_t(b) * n_);
    }
    return batch;
}

std::vector<int> probeSequence(const TrainConfig& c) {
    Rng rng(deriveSeed(c.seed, "probe"));
    std::vector<int> ids(static_cast<std::size_t>(c.context));
    repeatedSequence(rng, c.vocab, c.context, std::min(c.context / 2, c.vocab), ids.data());
    return ids;
}

}  // namespace headscope::train
