#pragma once
// What the Llama-like families change from Llama, as data the loader and the forward read
// (../shared/reference/hf-families.md, sections 0-5, and each family's modeling_*.py):
//   llama, mistral, qwen2   Llama (Qwen2: q, k, v biases; Mistral, Qwen2: sliding windows)
//   qwen3                   RMSNorm of each head's q and k before RoPE (q_norm, k_norm: d_k)
//   smollm3                 layers without RoPE (no_rope_layers)
//   olmo2                   no input norm; norms after each sublayer; RMSNorm of the whole q and
//                           k projections before RoPE (q_norm: h*d_k, k_norm: kv*d_k)
//   gemma2, gemma3_text     (1 + w) RMSNorm, sandwich norms, embeddings times sqrt(d_model),
//                           query_pre_attn_scalar, softcaps (Gemma 2), sliding and full layers;
//                           Gemma 3: per-head q/k norms and a rotation per layer type
//   gemma3                  Gemma 3's image-text folders: the text tower alone (text_config;
//                           tensors language_model.model.* or model.language_model.*), as
//                           gemma3_text; the vision tower is not read
//   phi3                    fused qkv_proj [Q | K | V] and gate_up_proj [gate | up], partial
//                           rotary, LongRoPE, a sliding window on every layer
// For core/ sources only.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace headscope::io {

struct LlamaFamily {
    enum class QkNorm { None, PerHead, Whole };
    QkNorm qk_norm = QkNorm::None;
    bool gemma = false;         // (1 + w) norms, sandwich: input, post_attention, pre_ and post_feedforward
    bool post_norms = false;    // OLMo 2: post_attention_layernorm and post_feedforward_layernorm only
    bool fused = false;         // Phi-3: qkv_proj and gate_up_proj
    bool qkv_biases = false;    // Qwen2: q, k and v always have biases, o none
};

// The families this loader opens, in the order error messages list them.
const std::vector<std::string>& llamaFamilyTypes();
// std::invalid_argument for a model_type not in llamaFamilyTypes().
LlamaFamily llamaFamily(const std::string& model_type);

// config.json of a Gemma 3 image-text folder: model_type "gemma3" (false for any other JSON).
bool isImageTextGemma3(const nlohmann::json& config);

// The settings of the tower the forward runs: `config` itself, or for a Gemma 3 image-text folder
// (model_type "gemma3") its "text_config" as model_type "gemma3_text", with Gemma3TextConfig's
// defaults for the sizes it leaves out and the outer dtype. IoError naming `path` when absent.
nlohmann::json textTowerConfig(const nlohmann::json& config, const std::string& path);

}  // namespace headscope::io
