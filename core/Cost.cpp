#include "Cost.h"

namespace headscope {

Cost computeCost(const Config& c, int n_q, int n_kv) {
    const long long d = c.d_model, h = c.heads, kv = c.kvHeads(), d_k = c.headDimK(), d_v = c.headDimV();
    const long long nq = n_q, nkv = n_kv;
    Cost cost;
    cost.qk_factored_params = 2 * d * d_k;
    cost.qk_merged_params = d * d;
    cost.logits_factored_flops = nq * d * d_k + nkv * d * d_k + nq * nkv * d_k;
    cost.logits_merged_flops = nq * d * d + nq * nkv * d;
    cost.attention_flops_per_head = nq * nkv * (d_k + d_v);
    cost.total_params = c.parameterCount();
    cost.projection_flops = nq * d * h * d_k + nkv * d * kv * (d_k + d_v) + nq * h * d_v * d;
    cost.attention_flops_all_heads = h * cost.attention_flops_per_head;
    cost.attention_flops_full_width = nq * nkv * 2 * d;
    return cost;
}

}  // namespace headscope
