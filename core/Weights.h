#pragma once
// Fused projection matrices of one multi-head attention layer, laid out as in the
// paper with row-vector inputs (X W), i.e. the transpose of PyTorch's nn.Linear weight:
//   W_Q (d_model, h*d_k)    W_K (d_model, kv*d_k)    W_V (d_model, kv*d_v)
//   W_O (h*d_v, d_model)    b_Q (h*d_k)  b_K (kv*d_k)  b_V (kv*d_v)  b_O (d_model)
// Head i's matrices are views into the fused ones (middleCols / middleRows), never copies.
// Query head i reads key/value head i / (h / kv) (grouped-query attention).

#include <Eigen/Core>

#include "Config.h"

namespace headscope {

struct Weights {
    int heads = 0;
    int kv_heads = 0;
    int d_k = 0;
    int d_v = 0;

    Eigen::MatrixXf W_Q, W_K, W_V, W_O;
    Eigen::RowVectorXf b_Q, b_K, b_V, b_O;  // size 0 when the layer has no biases

    int dModel() const { return static_cast<int>(W_Q.rows()); }
    bool hasBias() const { return b_Q.size() > 0; }
    int kvHeadOf(int head) const { return head / (heads / kv_heads); }

    // Head i's projection matrices (d_model, d_k), (d_model, d_k), (d_model, d_v), (d_v, d_model).
    auto queryHead(int i) const { return W_Q.middleCols(i * d_k, d_k); }
    auto keyHead(int i) const { return W_K.middleCols(kvHeadOf(i) * d_k, d_k); }
    auto valueHead(int i) const { return W_V.middleCols(kvHeadOf(i) * d_v, d_v); }
    auto outputHead(int i) const { return W_O.middleRows(i * d_v, d_v); }

    // Total trainable parameters, biases included.
    long long parameterCount() const;

    // Empty when every entry is finite and the shapes agree; otherwise what is wrong.
    std::string check() const;
};

// Seeded weights for a valid config; the same numbers on every machine.
// Xavier: PyTorch nn.MultiheadAttention's default: xavier_uniform over the stacked
// in-projection [W_Q; W_K; W_V] (fan_in d_model, fan_out h*d_k + kv*d_k + kv*d_v),
// W_O kaiming_uniform(a = sqrt 5) i.e. U(-1/sqrt(h*d_v), 1/sqrt(h*d_v)), zero biases.
// Normal: every weight and bias drawn from N(0, init_sigma).
Weights makeWeights(const Config& config);

}  // namespace headscope
