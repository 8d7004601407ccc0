#pragma once
// The task an induction head solves: a string of L distinct random tokens written twice
// (L drawn per sequence from [min_repeat, max_repeat]), from position 0 or, with random_start,
// after f random tokens (f uniform in [0, n - 2L]), then padding to the context:
//   n = 14, L = 5, f = 2:  g a q x v k z q x v k z . .      position t predicts token t + 1
// Only the f + 2L tokens count (the padding, after them, changes nothing before it under the
// causal mask). From the second copy on (t >= f + L) the next token is the one after the previous
// occurrence of the current token: the "repeated half", whose loss and accuracy are measured
// apart. The string's tokens are distinct (the filler may share them). A varying L leaves no
// fixed offset to copy from; with a fixed L a one-layer model can copy from t - L + 1. Without
// induction the best guess in the repeated half is a token of the string not yet repeated.
#include <cstdint>
#include <vector>

#include "Random.h"
#include "train/TrainConfig.h"

namespace headscope::train {

struct Batch {
    int sequences = 0, n = 0;
    std::vector<int> ids;      // (sequences, n) row-major: sequence b's token t at b * n + t
    std::vector<int> repeat;         // (sequences) the string length L of each
    std::vector<int> repeated_from;  // (sequences) f + L: positions t >= it predict a repeated token
    std::vector<int> lengths;        // (sequences) f + 2L: the tokens that count; the rest is padding

};

// One sequence of n tokens as above: `length` distinct tokens from [0, vocab) (a partial
// Fisher-Yates shuffle) written twice after the filler; the padding continues the repetition (it
// is never scored). Writes n ids to out and returns f; 2 length <= n, length <= vocab.
int repeatedSequence(Rng& rng, int vocab, int n, int length, bool random_start, int* out);

class RepeatData {
public:
    RepeatData(const TrainConfig& config, std::uint64_t seed);
    Batch next(int sequences);  // the next batch of the stream
private:
    int vocab_, n_, min_, max_;
    bool random_start_;
    Rng rng_;
};

// The fixed probe the heads' scores and attention snapshots are measured on: a sequence of the
// task with L = max_repeat, the same for a seed.
std::vector<int> probeSequence(const TrainConfig& config);

}  // namespace headscope::train
