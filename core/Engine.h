#pragma once
// The attention engine: one pure function from (options, weights, input) to results.
//   Q = X_q W_Q + b_Q (n_q, h*d_k)   K = X_kv W_K + b_K (n_kv, kv*d_k)   V = X_kv W_V + b_V
//   rotary (when options.rotary has frequencies): every head's Q_i and K_g rotated by their
//           positions after the bias, so Results.Q and Results.K hold the rotated q and k
//           the softmax sees (Rotary below)
//   head i: logits_i = Q_i K_g^T * scale / T (n_q, n_kv), weights_i = softmax_rows(logits_i),
//           out_i = weights_i V_g (n_q, d_v) with g = i / (h / kv)
//   concat = [out_0 ... out_{h-1}] (n_q, h*d_v),  output = concat W_O + b_O (n_q, d_model)
// Masked logits are -infinity; a row whose keys are all masked gets zero weights and a
// zero head output (PyTorch would give NaN: 0/0 in the softmax).

#include <Eigen/Core>
#include <atomic>
#include <exception>
#include <functional>
#include <vector>

#include "Config.h"
#include "Input.h"
#include "Weights.h"

namespace headscope {

using MaskMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

// Rotary position embedding (Su et al. 2021, "RoFormer") in the rotate-half layout of
// GPT-NeoX and Llama (Hugging Face apply_rotary_pos_emb). The first 2m dimensions of a head
// (m = inverse_frequencies.size(), m <= d_k / 2) are two halves [a | b]; pair p = (a_p, b_p)
// of a row at position t turns by the angle t * theta_p:
//   a_p' = a_p cos(t theta_p) - b_p sin(t theta_p),   b_p' = b_p cos(t theta_p) + a_p sin(t theta_p)
// and the dimensions past 2m pass unchanged (partial rotary: GPT-NeoX's rotary_pct).
// Angles and their cos/sin are computed in float, as Hugging Face does.
struct Rotary {
    Eigen::VectorXf inverse_frequencies;  // (m) theta_p in radians per position; empty: no rotation
    std::vector<int> query_positions;     // position of each query row; empty: 0 .. n_q - 1
    std::vector<int> key_positions;       // position of each key row; empty: 0 .. n_kv - 1
    // cos and sin multiplied by it (LongRoPE's attention factor, Phi-3.5 and Phi-4-mini); 1: none.
    float attention_scaling = 1;

    bool enabled() const { return inverse_frequencies.size() > 0; }
    int dims() const { return 2 * static_cast<int>(inverse_frequencies.size()); }  // rotated dims of a head
};

// Rotates every head of x (n, heads*d_k) in place: row r at positions[r] (or r when positions
// is empty). cos/sin tables (n, m) are computed once per call. std::invalid_argument when
// the rotary dims do not fit in d_k or positions has the wrong length.
void rotateHeads(const Rotary& rotary, const std::vector<int>& positions, int d_k, Eigen::Ref<Eigen::MatrixXf> x);

struct AttentionOptions {
    MaskKind mask = MaskKind::None;
    // Sliding window (Mistral, Gemma's local layers): with the causal mask, query q sees only
    // keys q - window < k <= q (transformers' sliding_window_overlay); without it (an encoder's
    // local layer, ModernBERT) the band |q - k| <= window. 0: no window.
    int window = 0;
    std::vector<int> padded_keys;  // key positions no query may attend to
    bool scale = true;             // multiply logits by 1/sqrt(d_k)
    double scale_base = 0;         // with scale: 1/sqrt(scale_base) instead (Gemma's query_pre_attn_scalar); 0: d_k
    // Gemma 2's attention softcap: logits = softcap * tanh(logits / softcap) after the scale, before
    // the mask (eager_attention_forward); 0: none.
    double softcap = 0;
    double temperature = 1.0;      // divide logits by T
    Rotary rotary;                 // none by default; a rotary model's layers set it

    static AttentionOptions from(const Config& config);
    float logitFactor(int d_k) const;
};

struct HeadResult {
    // (n_q, n_kv), -inf where masked. Empty in a long input's layer (model::ForwardOptions::keep_maps
    // off), which keeps its weights only: headLogits() gives them again, bit for bit.
    Eigen::MatrixXf logits;
    Eigen::MatrixXf weights;  // (n_q, n_kv), rows sum to 1 (or 0 when fully masked)
    Eigen::MatrixXf output;   // (n_q, d_v)
    // With the logits given back as they were computed (a long input's layer) and larger than
    // kPooledCells a side, those logits pooled first, as poolMaps pools them (Downsample.h), for the
    // pictures. Else empty.
    Eigen::MatrixXf pooled_logits;
};

struct Results {
    Eigen::MatrixXf Q, K, V;       // fused projections, biases added; Q and K rotated when
                                   // options.rotary is on (the q and k the softmax sees)
    // A model layer that normalises q and k before the score (Qwen3, Gemma 3, OLMo 2): X W + b
    // before that norm (n_q, h*d_k) and (n_kv, kv*d_k); empty for every other layer.
    Eigen::MatrixXf Q_projected, K_projected;
    MaskMatrix allowed;            // (n_q, n_kv) true where a query may attend to a key
    std::vector<HeadResult> heads;
    Eigen::MatrixXf concat;        // (n_q, h*d_v)
    Eigen::MatrixXf output;        // (n_q, d_model)
};

// (n_q, n_kv) visibility from causal / sliding-window / key-padding options.
MaskMatrix makeAllowed(const AttentionOptions& options, int n_q, int n_kv);

// The query rows a mask may leave unmasked in key k's column: k - before <= q <= k + after
// (a negative bound: none on that side). Causal: {0, -1}; with a window w, {0, w - 1}; an encoder's
// band |q - k| <= w: {w, w}; no mask: {-1, -1}.
struct VisibleRows {
    Eigen::Index before = -1, after = -1;
    static VisibleRows of(const AttentionOptions& options);
    bool all() const { return before < 0 && after < 0; }
};

// Stable row softmax of masked logits; fully masked rows become zeros. (n_q, n_kv)
// visible: a promise that every logit outside it is masked (-inf); those are not computed, and the
// weights are the same bits as with {-1, -1}.
Eigen::MatrixXf softmaxRows(const Eigen::Ref<const Eigen::MatrixXf>& logits, VisibleRows visible = {});

// Everything after the projections, shared by forward() and a loaded model's layers
// (model/AttentionWeights.h): r.Q (n_q, heads*d_k), r.K (n_kv, kv_heads*d_k) and
// r.V (n_kv, kv_heads*d_v) hold X W + b; Q and K are rotated (options.rotary), then per head
// the logits, mask, softmax and output, into r.allowed, r.heads and r.concat (n_q, heads*d_v).
// The output projection is the caller's. std::invalid_argument when the shapes do not agree.
// head_done, when given, is called on the worker's thread as soon as head i's maps and output are
// computed; it may clear the maps (a long input's forward keeps a thumbnail of each instead), so a
// layer's maps are never all held at once.
using HeadDone = std::function<void(int head, HeadResult& result)>;
void attendProjected(const AttentionOptions& options, int heads, int kv_heads, int d_k, int d_v, Results& r,
                     bool parallel, const HeadDone& head_done = {});

// Head `head`'s logits (n_q, n_kv) as attendProjected computed them from r.Q and r.K (rotated)
// with the same options: the same numbers, bit for bit. std::invalid_argument for a head r lacks.
Eigen::MatrixXf headLogits(const AttentionOptions& options, const Results& r, int head);

// The fused path: three projections for all heads at once.
Results forward(const AttentionOptions& options, const Weights& weights,
                const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                const Eigen::Ref<const Eigen::MatrixXf>& x_kv);
Results forward(const Config& config, const Weights& weights, const Input& input);

// checkEquivalence() computes the logits the two other ways (per head i) and compares:
//  per-head: 3h separate maps, Q_i = X_q W_i^Q + b_i^Q, K_i = X_kv W_i^K + b_i^K.
//  merged:   X_q W_QK,i X_kv^T with W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), plus the
//            bias terms, exactly the same bilinear form.
// With rotary positions the per-head path rotates q and k as forward() does, and the merged
// path forms W_QK,i(Delta) = W_i^Q M(Delta) (W_g^K)^T once per distance Delta = j - i
// (RotaryCircuits.h): no single W_QK,i gives every logit, one per distance does. It costs a
// (d, d) product per distance and d^2 per cell, so above 2e9 multiply-adds it is skipped
// (merged_compared false, factored_vs_merged 0).

// W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), formed explicitly (for export and checks).
Eigen::MatrixXf mergedQK(const Weights& weights, int head);

// Thrown by checkEquivalence when its stop flag was set before every head was checked: the
// caller no longer wants these residuals (a newer change arrived), so the heads not yet started
// are skipped and nothing partial is returned.
struct EquivalenceStopped : std::exception {
    const char* what() const noexcept override { return "the equivalence check was stopped"; }
};

struct Equivalence {
    double fused_vs_per_head = 0;   // max |logits_fused - logits_per_head| over heads, unmasked cells
    double factored_vs_merged = 0;  // max |logits_fused - logits_merged|
    double max_abs_logit = 0;       // scale for judging the two residuals
    long long compared_cells = 0;   // unmasked cells compared over all heads; 0: nothing to compare
    bool merged_compared = true;    // false when the merged rotary check was too large: see above
};
Equivalence checkEquivalence(const AttentionOptions& options, const Weights& weights,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_kv, const Results& fused,
                             const std::atomic<bool>* stop = nullptr);

}  // namespace headscope
