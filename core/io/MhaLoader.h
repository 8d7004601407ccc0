#pragma once
// Loads the weights of one PyTorch nn.MultiheadAttention layer from a .safetensors
// state dict. Tensor names, each preceded by `prefix` (e.g. "layers.0.self_attn."):
//   in_proj_weight (3d, d)  or  q_proj_weight, k_proj_weight, v_proj_weight, each (d, d)
//   in_proj_bias (3d)          optional
//   out_proj.weight (d, d)
//   out_proj.bias (d)          optional
// PyTorch's nn.Linear weights are (out, in); Weights uses row vectors (X W), so
//   W_Q = in_proj_weight[0:d]^T, W_K = in_proj_weight[d:2d]^T, W_V = in_proj_weight[2d:3d]^T,
//   W_O = out_proj.weight^T, b_Q / b_K / b_V = thirds of in_proj_bias, b_O = out_proj.bias.
// When only one of the two biases is stored the other is zeros; with neither, all four
// biases are empty. heads = kv_heads = `heads`, d_k = d_v = d / heads.
// Unsupported layers (kdim / vdim != embed_dim, add_bias_kv) and every problem with the
// file (missing tensors, wrong shapes, non-finite values, heads not dividing d) are
// reported as one IoError.

#include <string>

#include "Weights.h"

namespace headscope::io {

Weights loadMultiheadAttention(const std::string& path, int heads, const std::string& prefix = "");

}  // namespace headscope::io
