#pragma once
// How one attention score is made, for one head and one cell (query i, key j):
//   q_i = x_i W_i^Q + b_i^Q (d_k)   k_j = x_j W_g^K + b_g^K (d_k)   (rows of Results::Q / K)
//   q_i * k_j element-wise (d_k), summed: q_i . k_j
//   logit_ij = (q_i . k_j) * scale / T,  scale = 1/sqrt(d_k) (or 1 when scaling is off)
//   weight_ij = softmax(logits_i)_j    (the engine's row, read, not recomputed)
// and the same score through the merged circuit W_QK,i = W_i^Q (W_g^K)^T (d_model, d_model):
//   q_i . k_j = x_i W_QK,i x_j^T + x_i W_i^Q b_k^T + b_q (W_g^K)^T x_j^T + b_q b_k^T
// with g = i / (h / kv). A masked cell carries the reason instead of numbers.

#include <Eigen/Core>
#include <optional>
#include <string>

#include "Analysis.h"
#include "RotaryCircuits.h"

namespace headscope {

struct BilinearScore {
    double main = 0;        // x_i W_QK,i x_j^T
    double query_bias = 0;  // x_i W_i^Q b_k^T   (0 without biases)
    double key_bias = 0;    // b_q (W_g^K)^T x_j^T
    double bias_bias = 0;   // b_q b_k^T
    double sum = 0;         // the four terms: q_i . k_j again
    double logit = 0;       // sum * scale / T
    double difference = 0;  // logit - ScoreBreakdown::logit (float rounding only)
};

struct ScoreBreakdown {
    int head = 0, kv_head = 0, row = 0, col = 0, d_k = 0;
    std::string query_token, key_token;

    bool masked = false;
    std::string reason;  // masked only: "key 3 is after query 1 (causal mask)", "key 0 is padded"

    // Unmasked only (size 0 when masked).
    Eigen::VectorXf q, k;     // (d_k) the rows of Results::Q / K the head reads, biases included
    Eigen::VectorXf product;  // (d_k) q * k element-wise
    // A layer that normalises q and k before the score (Analysis::qk_norm): the same rows before that
    // norm (Results::Q_projected / K_projected), (d_k) each; empty otherwise.
    Eigen::VectorXf q_projected, k_projected;
    double dot = 0;           // sum of product, accumulated in double
    double scale = 1;         // 1/sqrt(d_k), or 1 when scaling is off
    double temperature = 1;   // T
    double factor = 1;        // the engine's float factor scale / T
    double logit = 0;         // dot * factor
    double softcap = 0;       // Gemma 2's attention softcap; 0: none
    double capped_logit = 0;  // softcap * tanh(logit / softcap): what the softmax sees (= logit without a cap)
    double engine_logit = 0;  // the engine's logit: Analysis::logitAt(head, row, col)
    std::optional<BilinearScore> bilinear;  // absent when no W_QK,i was given, and with rotary positions
    // Rotary layers only: q_i . k_j split into the d_k/2 rotary pairs (p, p + m) and the unrotated
    // dims (RotaryCircuits.h). A rotation keeps each pair's own dot product, so pair p's share is
    // product[p] + product[p + m] of the rotated q and k; delta = j's position - i's.
    std::optional<PairSplit> rotary_pairs;
    int delta = 0;

    // Always: the engine's softmax row (n_kv; masked keys 0) and this cell's weight in it.
    Eigen::VectorXf softmax_row;
    double weight = 0;
};

// Why query `row` may not attend to key `col`, or "" when it may. Masking comes from the
// engine's Results::allowed; the words from the config (causal mask, padded keys).
std::string maskReason(const Analysis& analysis, int row, int col);

// The breakdown of cell (row, col) of head. w_qk: that head's W_QK,i (d_model, d_model), e.g.
// the document's circuits or mergedQK(); nullptr leaves `bilinear` empty. Throws
// std::out_of_range for a head, row or column that does not exist.
ScoreBreakdown scoreBreakdown(const Analysis& analysis, int head, int row, int col,
                              const Eigen::MatrixXf* w_qk = nullptr);

// The cell shown when none is selected: the last query and the key it attends to most
// (the last unmasked key if its row is fully masked). (row, col)
std::pair<int, int> defaultCell(const Analysis& analysis, int head);

}  // namespace headscope
