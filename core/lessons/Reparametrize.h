#pragma once
// The factors of W_QK are not unique: for any invertible M (d_k, d_k),
//   (W_i^Q M) (W_i^K M^-T)^T = W_i^Q M M^-1 (W_i^K)^T = W_i^Q (W_i^K)^T,
// so the scores, and with them the attention, do not change (biases transform the same way:
// b_i^Q M and b_i^K M^-T). Lesson 1 applies this to the live weights.

#include <cstdint>

#include "Analysis.h"
#include "Weights.h"

namespace headscope::lessons {

struct Reparametrized {
    Weights weights;          // W_Q M, W_K M^-T (one M per key/value head group)
    double max_condition = 0; // largest cond(M) = s_max / s_min over the groups
};

// M = R diag(s) with R a seeded random orthogonal matrix and s in [0.5, 2]: cond(M) <= 4.
// W_Q (d_model, h*d_k): head i's block times M_g;  W_K (d_model, kv*d_k): group g's block times M_g^-T.
Reparametrized reparametrizeQK(const Weights& weights, std::uint64_t seed);

struct ReparametrizeCheck {
    double max_weight_diff = 0;   // max |softmax weights' - weights| over heads and cells
    double max_logit_diff = 0;    // max |logits' - logits| over unmasked cells
    double max_factor_change = 0; // max |W_Q M - W_Q|: the factors really did change
    double max_condition = 0;
};

// The seed of the M a lesson step applies (and whose effect its text quotes).
constexpr std::uint64_t kLessonSeed = 7;

// Runs the forward pass again with reparametrizeQK(analysis.weights, seed) and compares.
ReparametrizeCheck checkReparametrization(const Analysis& analysis, std::uint64_t seed = kLessonSeed);

// analysis with its weights replaced by W_Q M, W_K M^-T and its results computed again from
// them: what the views show when a lesson step applies the reparametrization to the live
// weights. The spectra, costs and logits' ranks are carried over: W_QK,i, W_OV,i and the
// logits are the same matrices (up to float rounding); the equivalence residuals are dropped.
Analysis reparametrizedAnalysis(const Analysis& analysis, std::uint64_t seed = kLessonSeed);

}  // namespace headscope::lessons
