#pragma once
// Closed-form parameter and FLOP counts. FLOPs here count multiply-adds (one per
// term of a matrix product), as the usual closed forms are written: the logits of one head
// for n tokens cost 2 n d_model d_k + n^2 d_k factored and n d_model^2 + n^2 d_model merged.

#include "Config.h"

namespace headscope {

struct Cost {
    // Per head: the factored pair W_i^Q, W_i^K against one merged W_QK,i.
    long long qk_factored_params = 0;  // 2 * d_model * d_k
    long long qk_merged_params = 0;    // d_model^2
    // Logits of one head for n_q queries and n_kv keys.
    long long logits_factored_flops = 0;  // n_q d_model d_k + n_kv d_model d_k + n_q n_kv d_k
    long long logits_merged_flops = 0;    // n_q d_model^2 + n_q n_kv d_model
    long long attention_flops_per_head = 0;  // Q_i K_i^T and weights_i V_i: n_q n_kv (d_k + d_v)
    long long total_params = 0;            // W_Q, W_K, W_V, W_O and biases of the layer

    // The four projections of the layer. Fused (one X W_Q for all heads) and per-head (3h
    // maps X W_i^Q ...) are the same multiply-adds: the per-head maps are column blocks.
    //   n_q d_model h d_k + n_kv d_model kv (d_k + d_v) + n_q h d_v d_model
    long long projection_flops = 0;
    // Attention (scores and weighted values) of all h heads: h n_q n_kv (d_k + d_v), against
    // one full-width head with d_k = d_v = d_model: n_q n_kv 2 d_model. Equal when h d_k = d_model.
    long long attention_flops_all_heads = 0;
    long long attention_flops_full_width = 0;
};

Cost computeCost(const Config& config, int n_q, int n_kv);

}  // namespace headscope
