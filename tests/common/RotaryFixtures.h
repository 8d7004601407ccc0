#pragma once
// Fixtures of the rotary tests (test_rotary, test_rotary_delta): a layer's weights drawn from
// Eigen's Random after std::srand(seed), and the rotary frequencies of `pairs` turned pairs
// with a given base, as a Llama checkpoint's rope_theta sets them.

#include <Eigen/Core>
#include <cmath>
#include <cstdlib>

#include "Engine.h"
#include "Weights.h"

namespace headscope::test {

// W_Q (d, heads*d_k), W_K and W_V (d, kv_heads*d_k), W_O (heads*d_k, d), uniform in [-1, 1];
// the biases too when bias is set.
inline Weights randomWeights(int d, int heads, int kv_heads, int d_k, unsigned seed, bool bias = true) {
    std::srand(seed);
    Weights w;
    w.heads = heads;
    w.kv_heads = kv_heads;
    w.d_k = w.d_v = d_k;
    w.W_Q = Eigen::MatrixXf::Random(d, heads * d_k);
    w.W_K = Eigen::MatrixXf::Random(d, kv_heads * d_k);
    w.W_V = Eigen::MatrixXf::Random(d, kv_heads * d_k);
    w.W_O = Eigen::MatrixXf::Random(heads * d_k, d);
    if (bias) {
        w.b_Q = Eigen::RowVectorXf::Random(heads * d_k);
        w.b_K = Eigen::RowVectorXf::Random(kv_heads * d_k);
        w.b_V = Eigen::RowVectorXf::Random(kv_heads * d_k);
        w.b_O = Eigen::RowVectorXf::Random(d);
    }
    return w;
}

// Pair p turns at base^(-2p / (2 pairs)) per position (the first 2 * pairs dims of a head).
inline Rotary rotaryOf(int pairs, double base) {
    Rotary r;
    r.inverse_frequencies.resize(pairs);
    for (int p = 0; p < pairs; ++p) r.inverse_frequencies(p) = float(std::pow(base, -2.0 * p / (2 * pairs)));
    return r;
}

}  // namespace headscope::test
