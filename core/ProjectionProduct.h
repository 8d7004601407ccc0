#pragma once
// Lesson 2's claim with its numbers: projecting twice is one linear map. For head i,
//   W_1 = W_i^Q (d_model, d_k), W_2 = (W_i^K)^T (d_k, d_model), W_1 W_2 = W_QK,i (d_model, d_model)
//   X (n, d_model) -> X W_1 (n, d_k) -> (X W_1) W_2 (n, d_model)
//   X (n, d_model) -> X (W_1 W_2)     (n, d_model)
// The two orders agree up to float rounding: each entry is a sum over d_model and d_k products,
// so |(X W_1) W_2 - X (W_1 W_2)| <= 2 (d_model + d_k) u (|X| |W_1| |W_2|) entrywise (u = 2^-24,
// the standard forward error bound of a float dot product, applied to both orders). The bound
// is reported with the largest difference. Costs n d_model d_k + d_model^2 d_k + 2 n d_model^2
// multiply-adds: form it off the GUI thread.

#include <Eigen/Core>

#include "Weights.h"

namespace headscope {

struct ProjectionProduct {
    int head = 0;
    Eigen::MatrixXf first;   // X W_1 (n, d_k)
    Eigen::MatrixXf twice;   // (X W_1) W_2 (n, d_model)
    Eigen::MatrixXf merged;  // X (W_1 W_2) (n, d_model)
    double max_difference = 0;  // max |twice - merged|
    double max_abs = 0;         // max |merged|
    double rounding_bound = 0;  // max of 2 (d_model + d_k) u (|X| |W_1| |W_2|): the difference stays below it
};

// head must be in [0, heads) and X must have d_model columns (std::invalid_argument otherwise).
ProjectionProduct projectTwice(const Eigen::Ref<const Eigen::MatrixXf>& X, const Weights& weights, int head);

}  // namespace headscope
