#pragma once
// The task an induction head solves: each sequence is L distinct random tokens repeated to fill
// the context (L drawn per sequence from [min_repeat, max_repeat]):
//   L = 5:  q x v k z q x v k z q x v ...      position p predicts token p + 1
// From position L on, the next token is the one after the previous occurrence of the current
// token: the "repeated part" whose loss and accuracy are measured apart. Tokens are distinct
// within a string, so that previous occurrence is unambiguous. A varying L leaves no fixed
// offset to copy from (with a fixed L a one-layer model copies from position p - L + 1).

#include <cstdint>
#include <vector>

#include "Random.h"
#include "train/TrainConfig.h"

namespace headscope::train {

struct Batch {
    int sequences = 0, n = 0;
    std::vector<int> ids;      // (sequences, n) row-major: sequence b's token t at b * n + t
    std::vector<int> repeat;   // (sequences) the string length L of each
    // Whether position t of a sequence with string length L predicts a repeated token (t >= L).
    static bool repeatedTarget(int t, int repeat_length) { return t >= repeat_length; }
};

// One sequence of n tokens: `length` distinct tokens from [0, vocab) (a partial Fisher-Yates
// shuffle), repeated. Writes n ids to out.
void repeatedSequence(Rng& rng, int vocab, int n, int length, int* out);

class RepeatData {
public:
    RepeatData(const TrainConfig& config, std::uint64_t seed);
    Batch next(int sequences);  // the next batch of the stream
private:
    int vocab_, n_, min_, max_;
    Rng rng_;
};

// The fixed probe the heads' scores and attention snapshots are measured on: a string of
// min(context / 2, vocab) distinct tokens repeated to fill the context, the same for a seed.
std::vector<int> probeSequence(const TrainConfig& config);

}  // namespace headscope::train
