#pragma once
// A transformer language model, loaded once: the decoders (GPT-2, the Llama-like families, GPT-NeoX)
// and the masked-language-model encoders (BERT, RoBERTa, DistilBERT, ModernBERT), as the Hugging
// Face modeling code computes them. Immutable once loaded
// and shared by everything that shows it: std::shared_ptr<const Model>.
// Row-vector layout as in core/Weights.h: activations are (n, d_model), X W.
//   X_0 = E[ids] (+ P[0..n) when the family has a position embedding: GPT-2)
//   sequential block (GPT-2, Llama, NeoX with use_parallel_residual false):
//        a = X + Attn(N_1(X)),  X' = a + MLP(N_2(a))
//   parallel block (NeoX, Pythia):  X' = X + Attn(N_1(X)) + MLP(N_2(X))
//   N: LayerNorm (weight, bias) or RMSNorm (weight only, x / sqrt(mean(x^2) + eps))
//   MLP plain: act(x W_fc + b_fc) W_proj + b_proj;  gated (SwiGLU): (act(x W_gate) * (x W_fc)) W_proj
//   post-norm block (BERT, RoBERTa, DistilBERT):  a = N_1(X + Attn(X)),  X' = N_2(a + MLP(a))
//   logits = N_f(X_L) E^T (or lm_head^T when the output embedding is untied)
// Encoders: attention in both directions (padded keys masked), X_0 = N_e(E[ids] + P[positions] +
// T[token types]), and the masked-LM head: logits = N_h(act(N_f(X_L) W_h + b_h)) E^T + b_out.
// Every weight matrix (attention, MLP, embeddings) is a LinearWeight (model/LinearWeight.h) in
// the checkpoint's own layout: F32 ones used in place from the memory-mapped checkpoint, F16/BF16
// ones converted when a layer is computed, a few layers kept converted (conversion_cache). Each
// block's attention is an AttentionWeights (model/AttentionWeights.h: GPT-2's fused c_attn,
// NeoX's per-head fused query_key_value, Llama's q, k, v, o); a rotary family's q and k are
// turned by their positions in core's attendProjected() (Engine.h Rotary). The paper's layout
// of one layer (core/Weights.h, for the views) is attentionWeights(layer), built on demand.

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "Weights.h"
#include "model/AttentionWeights.h"
#include "model/LinearWeight.h"
#include "text/Tokenizer.h"

namespace headscope::model {

enum class Activation {
    GeluTanh,  // "gelu_new", "gelu_pytorch_tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluErf,   // "gelu": 0.5 x (1 + erf(x / sqrt 2))
    Relu,      // "relu"
    Silu,      // "silu", "swish": x sigmoid(x) (Llama's SwiGLU gate)
};

enum class NormKind {
    LayerNorm,  // (x - mean) / sqrt(var + eps) * weight + bias
    RmsNorm,    // x / sqrt(mean(x^2) + eps) * weight (Llama; computed in float)
};

enum class MlpKind {
    Plain,  // act(x W_fc + b_fc) W_proj + b_proj (GPT-2, GPT-NeoX)
    Gated,  // (act(x W_gate) * (x W_fc)) W_proj: Llama's down(silu(gate x) * up x)
};

struct ModelConfig {
    std::string family = "gpt2";  // config.json model_type: gpt2, gpt_neox, or a Llama-like one (io/LlamaFamily.h)
    int n_layer = 0;
    int n_head = 0;
    int n_kv_head = 0;    // key/value heads (grouped-query attention); 0: n_head
    int n_embd = 0;       // d_model
    int n_positions = 0;  // longest input
    int vocab_size = 0;   // rows of wte
    int n_inner = 0;      // MLP width (4 n_embd unless config.json says otherwise)
    double layer_norm_epsilon = 1e-5;
    Activation activation = Activation::GeluTanh;
    std::string activation_name = "gelu_new";
    bool scale_attn_weights = true;  // logits * 1/sqrt(d_k)
    bool tie_word_embeddings = true; // false: the checkpoint must hold lm_head.weight
    int head_dim = 0;     // explicit head size (Llama's head_dim); 0: n_embd / n_head
    NormKind norm = NormKind::LayerNorm;
    MlpKind mlp = MlpKind::Plain;
    bool parallel_residual = false;
    bool position_embedding = true;  // GPT-2's learned wpe; rotary families have none
    // Rotary positions: rotary_dims of each head's d_k are turned (0: none), with base
    // rope_theta; rope_scaling "llama3" or "linear" (or "" for none) and its parameters as config.json gives them.
    int rotary_dims = 0;
    double rope_theta = 10000;
    std::string rope_scaling;
    double rope_factor = 1, rope_low_freq_factor = 1, rope_high_freq_factor = 4;
    int rope_original_max_positions = 8192;
    std::vector<double> rope_short_factor, rope_long_factor;  // LongRoPE: one per rotated pair
    // Sliding-window attention (Mistral, Qwen2 with use_sliding_window, "layer_types"): a query
    // at position q sees the keys q - sliding_window < k <= q on the layers marked in
    // sliding_layers (empty: every layer). 0: no window.
    int sliding_window = 0;
    std::vector<bool> sliding_layers;
    // SmolLM3: false where a layer does not rotate q and k (NoPE); empty: every layer rotates.
    std::vector<bool> rope_layers;
    double local_rope_theta = 0;       // Gemma 3: the sliding layers' theta (default RoPE); 0: one rotation
    // Gemma: X_0 = E[ids] * embedding_scale (sqrt(d_model) rounded to the weights' dtype); 0: none.
    double embedding_scale = 0;
    double query_pre_attn_scalar = 0;  // Gemma: logits * query_pre_attn_scalar^-1/2; 0: d_k
    double attn_logit_softcap = 0;     // Gemma 2: cap * tanh(logits / cap) before the mask; 0: none
    double final_logit_softcap = 0;    // Gemma 2: the same on the output logits; 0: none
    // LongRoPE (Phi-3.5, Phi-4-mini): inputs longer than rope_original_max_positions turn by the
    // long factors (Model::long_inverse_frequencies); cos and sin scaled by rope_attention_scaling.
    float rope_attention_scaling = 1;
    std::string stored_dtype;  // config.json's "dtype" (or transformers 4's "torch_dtype"); "" when absent
    // Encoders (BERT, RoBERTa, DistilBERT, ModernBERT): every query sees every key (no causal mask);
    // a sliding layer's window is then the band |q - k| <= sliding_window (ModernBERT's local
    // layers: local_attention / 2). The output is the masked-LM head's.
    bool encoder = false;
    bool post_norm = false;        // BERT family: a block's norms after the residual adds (Block's *_out_norm)
    int type_vocab_size = 0;       // BERT: rows of Model::token_type_embeddings; 0: none
    // RoBERTa: positions count from padding_idx + 1 over the tokens that are not padding_idx, padding
    // itself at padding_idx (create_position_ids_from_input_ids); -1: positions 0, 1, ...
    int padding_position_id = -1;

    // The window of `layer`: sliding_window on a sliding layer, else 0 (full causal attention).
    int windowOf(int layer) const {
        const bool sliding = sliding_layers.empty() || (layer >= 0 && std::size_t(layer) < sliding_layers.size() &&
                                                        sliding_layers[std::size_t(layer)]);
        return sliding ? sliding_window : 0;
    }

    int headDim() const { return head_dim > 0 ? head_dim : n_head > 0 ? n_embd / n_head : 0; }
    int kvHeads() const { return n_kv_head > 0 ? n_kv_head : n_head; }
    // "GPT-2", "Llama", "Mistral", "Qwen2", "Qwen3", "SmolLM3", "OLMo 2", "Gemma 2", "Gemma 3", "Phi-3", "GPT-NeoX"
    std::string familyName() const;
    // Rotated share of a head, 0..1 (rotary_dims / d_k).
    double rotaryShare() const { return headDim() > 0 ? double(rotary_dims) / headDim() : 0; }
};

struct LayerNorm {
    Eigen::RowVectorXf weight, bias;  // (d_model); bias empty for RMSNorm
};

struct Block {
    LayerNorm ln_1;             // empty weight: no input norm (OLMo 2)
    AttentionWeights attention; // as stored: q, k, v (fused or not) and o, biases or none
    LayerNorm ln_2;
    LinearWeight W_fc;          // MLP in (n_inner, d): x W_fc^T (GPT-2 c_fc, NeoX dense_h_to_4h, Llama up_proj)
    LinearWeight W_gate;        // gated MLP only (n_inner, d): Llama's gate_proj; empty otherwise
    Eigen::RowVectorXf b_fc;    // (n_inner) or empty
    Eigen::RowVectorXf b_gate;  // (n_inner) or empty
    LinearWeight W_proj;        // MLP out (d, n_inner): GPT-2 mlp.c_proj, NeoX dense_4h_to_h, Llama down_proj
    Eigen::RowVectorXf b_proj;  // (d) or empty
    // A sublayer's output normalised before the residual adds it (Gemma's sandwich norms, OLMo 2's
    // post-norms), or with config.post_norm the sum normalised after (BERT); empty weights: none.
    LayerNorm attention_out_norm, mlp_out_norm;
};

struct Model {
    ModelConfig config;
    LinearWeight wte;           // token embeddings (vocab_size, d): row t is token t
    Eigen::MatrixXf wpe_t;      // position embeddings as columns (d, n_positions); empty without
    Eigen::VectorXf inverse_frequencies;  // rotary theta_p (rotary_dims / 2), scaling applied; empty without
    Eigen::VectorXf local_inverse_frequencies;  // Gemma 3's sliding layers; empty: inverse_frequencies
    Eigen::VectorXf long_inverse_frequencies;   // LongRoPE's long factors; empty: none
    std::vector<Block> blocks;
    LayerNorm ln_f;
    LinearWeight lm_head;       // untied output embedding (vocab_size, d); empty when tied to wte
    // Encoders: token types (type_vocab_size, d) (BERT; empty without), the embeddings' norm N_e,
    // and the masked-LM head: transform (d, d) with its bias, its norm N_h, the output bias (vocab).
    Eigen::MatrixXf token_type_embeddings;
    LayerNorm embedding_norm;
    LinearWeight head_transform;
    Eigen::RowVectorXf head_transform_bias;
    LayerNorm head_norm;
    Eigen::RowVectorXf output_bias;
    std::shared_ptr<const text::Tokenizer> tokenizer;  // never null once loaded
    std::string directory;      // where it was loaded from
    std::string dtype;          // of the stored weights: F32, F16 or BF16
    std::shared_ptr<ConversionCache> conversion_cache;  // F16/BF16 layers converted lately; null for F32
    long long zero_biases = 0;  // zeros the loader put where the checkpoint has no bias (Qwen2's o_proj)

    bool tiedOutput() const { return lm_head.empty(); }
    // (vocab_size, d): logits = h (n, d) outputEmbedding()^T
    const LinearWeight& outputEmbedding() const { return tiedOutput() ? wte : lm_head; }
    long long parameterCount() const;  // as stored (zero_biases not counted)
    // Block `layer`'s attention in the paper's layout (W_Q (d, h*d_k) ... W_O (h*d_v, d)), a copy
    // made on demand from its LinearWeights; the last LayerWeightsCache::kLayers layers asked for
    // are kept. Thread-safe. The blocks are not changed once this was called (a copy of the
    // Model starts with an empty cache). std::invalid_argument for a layer the model lacks.
    std::shared_ptr<const Weights> attentionWeights(int layer) const;

    LayerWeightsCache attention_layers;  // what attentionWeights() keeps
};

using ModelPtr = std::shared_ptr<const Model>;

// One line naming the architecture, e.g. "Llama, RMSNorm, gated MLP silu, RoPE theta 10000 on
// 100% of each head, 4 heads on 2 K/V heads, F32".
std::string describeArchitecture(const Model& model);

// The rotary inverse frequencies theta_p = 1 / rope_theta^(2p / rotary_dims), p < rotary_dims / 2,
// in float as Hugging Face computes them, with rope_scaling applied: "linear" (divided by
// factor), "llama3" (low frequencies divided by factor, a smooth blend between low_freq and
// high_freq wavelengths), "longrope" (1 / (ext_p theta^(2p / rotary_dims)), ext the short
// factors, or the long ones with `long_factors`). Empty when rotary_dims is 0.
Eigen::VectorXf rotaryInverseFrequencies(const ModelConfig& config, bool long_factors = false);

}  // namespace headscope::model
