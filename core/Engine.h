#pragma once
// The attention engine: one pure function from (options, weights, input) to results.
//   Q = X_q W_Q + b_Q (n_q, h*d_k)   K = X_kv W_K + b_K (n_kv, kv*d_k)   V = X_kv W_V + b_V
//   head i: logits_i = Q_i K_g^T * scale / T (n_q, n_kv), weights_i = softmax_rows(logits_i),
//           out_i = weights_i V_g (n_q, d_v) with g = i / (h / kv)
//   concat = [out_0 ... out_{h-1}] (n_q, h*d_v),  output = concat W_O + b_O (n_q, d_model)
// Masked logits are -infinity; a row whose keys are all masked gets zero weights and a
// zero head output (PyTorch would give NaN: 0/0 in the softmax).

#include <Eigen/Core>
#include <vector>

#include "Config.h"
#include "Input.h"
#include "Weights.h"

namespace headscope {

using MaskMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

struct AttentionOptions {
    MaskKind mask = MaskKind::None;
    std::vector<int> padded_keys;  // key positions no query may attend to
    bool scale = true;             // multiply logits by 1/sqrt(d_k)
    double temperature = 1.0;      // divide logits by T

    static AttentionOptions from(const Config& config);
    float logitFactor(int d_k) const;
};

struct HeadResult {
    Eigen::MatrixXf logits;   // (n_q, n_kv), -inf where masked
    Eigen::MatrixXf weights;  // (n_q, n_kv), rows sum to 1 (or 0 when fully masked)
    Eigen::MatrixXf output;   // (n_q, d_v)
};

struct Results {
    Eigen::MatrixXf Q, K, V;       // fused projections, biases added
    MaskMatrix allowed;            // (n_q, n_kv) true where a query may attend to a key
    std::vector<HeadResult> heads;
    Eigen::MatrixXf concat;        // (n_q, h*d_v)
    Eigen::MatrixXf output;        // (n_q, d_model)
};

// (n_q, n_kv) visibility from causal / key-padding options.
MaskMatrix makeAllowed(const AttentionOptions& options, int n_q, int n_kv);

// Stable row softmax of masked logits; fully masked rows become zeros. (n_q, n_kv)
Eigen::MatrixXf softmaxRows(const Eigen::Ref<const Eigen::MatrixXf>& logits);

// The fused path: three projections for all heads at once.
Results forward(const AttentionOptions& options, const Weights& weights,
                const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                const Eigen::Ref<const Eigen::MatrixXf>& x_kv);
Results forward(const Config& config, const Weights& weights, const Input& input);

// checkEquivalence() computes the logits the two other ways (per head i) and compares:
//  per-head: 3h separate maps, Q_i = X_q W_i^Q + b_i^Q, K_i = X_kv W_i^K + b_i^K.
//  merged:   X_q W_QK,i X_kv^T with W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), plus the
//            bias terms, exactly the same bilinear form.

// W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), formed explicitly (for export and checks).
Eigen::MatrixXf mergedQK(const Weights& weights, int head);

struct Equivalence {
    double fused_vs_per_head = 0;   // max |logits_fused - logits_per_head| over heads, unmasked cells
    double factored_vs_merged = 0;  // max |logits_fused - logits_merged|
    double max_abs_logit = 0;       // scale for judging the two residuals
    long long compared_cells = 0;   // unmasked cells compared over all heads; 0: nothing to compare
};
Equivalence checkEquivalence(const AttentionOptions& options, const Weights& weights,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_kv, const Results& fused);

}  // namespace headscope
