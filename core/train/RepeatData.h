#pragma once
// The task an induction head solves. By default a string of L random tokens (repeats allowed)
// repeated to fill the context, L drawn per sequence from [min_repeat, max_repeat], from
// position 0 or, with random_start, after f random tokens (f uniform in [0, n - 2L]):
//   n = 14, L = 4, f = 2:  g a q x v k q x v k q x v k      position t predicts token t + 1
// From t >= f + L (the "repeated part") the next token is the one after the previous occurrence
// of the current token; a varying L leaves no fixed offset to copy from (with a fixed L a
// one-layer model can copy from t - L + 1). Every position counts.
// With two_copies (the earlier task): L distinct tokens written only twice, then padding that
// continues the repetition but is not scored (under the causal mask it changes nothing before
// it); only f + 2L tokens count, and without induction the best guess in the repeated half is a
// token of the string not yet repeated.
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
    std::vector<int> lengths;        // (sequences) the tokens that count: n, or f + 2L with two_copies (the rest padding)

};

// One sequence of n tokens as above: `length` tokens from [0, vocab) (independent draws, or
// distinct with two_copies: a partial Fisher-Yates shuffle) repeated from f to the end. Writes n
// ids to out and returns f; 2 length <= n, and length <= vocab with two_copies.
int repeatedSequence(Rng& rng, int vocab, int n, int length, bool random_start, bool two_copies, int* out);

class RepeatData {
public:
    RepeatData(const TrainConfig& config, std::uint64_t seed);
    Batch next(int sequences);  // the next batch of the stream
private:
    int vocab_, n_, min_, max_;
    bool random_start_, two_copies_;
    Rng rng_;
};

// The fixed probe the heads' scores and attention snapshots are measured on: a sequence of the
// task with L = max_repeat, the same for a seed.
std::vector<int> probeSequence(const TrainConfig& config);

}  // namespace headscope::train
