#pragma once
// One block's attention in a loaded model, kept as the checkpoint stores it: LinearWeights
// (model/LinearWeight.h) in the file's own layout, F32 used in place from the memory map,
// F16/BF16 converted through the model's ConversionCache under the block's layer. Each weight
// is W (out, in) as nn.Linear holds it, y = x W^T:
//   Separate      (Llama, Mistral, Qwen2): W_Q (h*d_k, d), W_K (kv*d_k, d), W_V (kv*d_v, d)
//   Fused         (GPT-2 c_attn): W_QKV (h*d_k + kv*d_k + kv*d_v, d), output columns [Q | K | V]
//   FusedPerHead  (GPT-NeoX query_key_value, kv = h, d_v = d_k): W_QKV (3 h d_k, d), output
//                 columns grouped per head (h, 3, d_k): [q_0 | k_0 | v_0 | q_1 | k_1 | v_1 | ...]
//   W_O (d, h*d_v) always; biases b_Q (h*d_k), b_K (kv*d_k), b_V (kv*d_v), b_O (d) or all empty.
// The paper's X W layout of one layer (core/Weights.h), for the views, is toWeights(): a copy,
// which Model::attentionWeights() makes on demand and keeps for the last few layers asked for.

#include <Eigen/Core>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "Engine.h"
#include "Weights.h"
#include "model/LinearWeight.h"

namespace headscope::model {

enum class QkvPacking { Separate, Fused, FusedPerHead };

struct AttentionWeights {
    int heads = 0, kv_heads = 0, d_k = 0, d_v = 0;
    QkvPacking packing = QkvPacking::Separate;
    LinearWeight W_QKV;          // fused packings only (see above)
    LinearWeight W_Q, W_K, W_V;  // Separate only
    LinearWeight W_O;            // (d, h*d_v)
    Eigen::RowVectorXf b_Q, b_K, b_V, b_O;  // empty when the layer has no biases
    // RMSNorm of q and k after the projection, before RoPE (empty: none): per head over d_k, one
    // weight (d_k) for every head (Qwen3, Gemma 3, its (1 + w) stored as such), or over the whole
    // projection, weights (h*d_k) and (kv*d_k) (OLMo 2).
    Eigen::RowVectorXf q_norm, k_norm;
    bool qk_norm_per_head = true;
    double qk_norm_epsilon = 1e-6;

    int dModel() const { return static_cast<int>(W_O.rows()); }
    bool hasBias() const { return b_Q.size() > 0; }
    bool hasQkNorm() const { return q_norm.size() > 0; }
    long long parameterCount() const;
    // Every matrix used in place from the memory map (an F32 checkpoint).
    bool inPlace() const;

    // x (n, d) -> r.Q (n, h*d_k), r.K (n, kv*d_k), r.V (n, kv*d_v), biases added.
    void project(const Eigen::Ref<const Eigen::MatrixXf>& x, Results& r, bool parallel) const;
    // The paper's layout (core/Weights.h): W_Q (d, h*d_k) ... W_O (h*d_v, d), a float copy.
    Weights toWeights() const;
    // Owned LinearWeights holding `w` (models built in code, tests): Separate packing.
    static AttentionWeights owned(const Weights& w);
};

// One layer of a loaded model on x (n, d): the projections through `w` in place, then core's
// attendProjected() (rotary, logits, mask, softmax, heads, concat), then
// output (n, d) = concat (n, h*d_v) W_O^T + b_O.
// head_done: as attendProjected's (Engine.h).
Results attend(const AttentionOptions& options, const AttentionWeights& w, const Eigen::Ref<const Eigen::MatrixXf>& x,
               const HeadDone& head_done = {});

// The paper-layout Weights of the last `capacity` layers asked for, built with `make` on a miss;
// safe from several threads. A copy starts empty (a copied Model may have other weights).
class LayerWeightsCache {
public:
    static constexpr int kLayers = 3;
    LayerWeightsCache() = default;
    LayerWeightsCache(const LayerWeightsCache&) {}
    LayerWeightsCache& operator=(const LayerWeightsCache&) {
        clear();
        return *this;
    }
    std::shared_ptr<const Weights> get(int layer, const AttentionWeights& w) const;
    void clear();
    long long built() const;  // layers converted so far (tests)

private:
    mutable std::mutex mutex_;
    mutable std::list<std::pair<int, std::shared_ptr<const Weights>>> layers_;  // most recent first
    mutable long long built_ = 0;
};

}  // namespace headscope::model
