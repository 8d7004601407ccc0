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

int repeatedSequence(Rng& rng, int vocab, int n, int length, bool random_start, bool two_copies, int* out) {
    std::vector<int> pool(static_cast<std::size_t>(vocab));
    std::iota(pool.begin(), pool.end(), 0);
    if (two_copies)  // distinct: a partial Fisher-Yates shuffle
        for (int i = 0; i < length; ++i) std::swap(pool[i], pool[i + uniformIndex(rng, vocab - i)]);
    else  // independent draws, repeats allowed
        for (int i = 0; i < length; ++i) pool[i] = uniformIndex(rng, vocab);
    const int f = random_start ? uniformIndex(rng, n - 2 * length + 1) : 0;
    for (int t = 0; t < f; ++t) out[t] = uniformIndex(rng, vocab);
    for (int t = f; t < n; ++t) out[t] = pool[(t - f) % length];
    return f;
}

RepeatData::RepeatData(const TrainConfig& c, std::uint64_t seed)
    : vocab_(c.vocab), n_(c.context), min_(c.min_repeat), max_(c.max_repeat), random_start_(c.random_start),
      two_copies_(c.two_copies), rng_(seed) {
    c.validate();
}

Batch RepeatData::next(int sequences) {
    Batch batch;
    batch.sequences = sequences;
    batch.n = n_;
    batch.ids.resize(static_cast<std::size_t>(sequences) * n_);
    for (int b = 0; b < sequences; ++b) {
        const int length = min_ + uniformIndex(rng_, max_ - min_ + 1);
        const int f = repeatedSequence(rng_, vocab_, n_, length, random_start_, two_copies_, batch.ids.data() + std::size_t(b) * n_);
        batch.repeat.push_back(length);
        batch.repeated_from.push_back(f + length);
        batch.lengths.push_back(two_copies_ ? f + 2 * length : n_);
    }
    return batch;
}

std::vector<int> probeSequence(const TrainConfig& c) {
    Rng rng(deriveSeed(c.seed, "probe"));
    std::vector<int> ids(static_cast<std::size_t>(c.context));
    repeatedSequence(rng, c.vocab, c.context, c.max_repeat, c.random_start, c.two_copies, ids.data());
    return ids;
}

}  // namespace headscope::train
