#pragma once
// A decoder-only language model, loaded once: the GPT-2, Llama (Mistral, Qwen2) and GPT-NeoX
// (Pythia) families, as the Hugging Face modeling code computes them. Immutable once loaded
// and shared by everything that shows it: std::shared_ptr<const Model>.
// Row-vector layout as in core/Weights.h: activations are (n, d_model), X W.
//   X_0 = E[ids] (+ P[0..n) when the family has a position embedding: GPT-2)
//   sequential block (GPT-2, Llama, NeoX with use_parallel_residual false):
//        a = X + Attn(N_1(X)),  X' = a + MLP(N_2(a))
//   parallel block (NeoX, Pythia):  X' = X + Attn(N_1(X)) + MLP(N_2(X))
//   N: LayerNorm (weight, bias) or RMSNorm (weight only, x / sqrt(mean(x^2) + eps))
//   MLP plain: act(x W_fc + b_fc) W_proj + b_proj;  gated (SwiGLU): (act(x W_gate) * (x W_fc)) W_proj
//   logits = N_f(X_L) E^T (or lm_head^T when the output embedding is untied)
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
    std::string family = "gpt2";  // config.json model_type: gpt2, llama, mistral, qwen2, gpt_neox
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
    // rope_theta; rope_scaling "llama3" (or "" for none) and its parameters as config.json gives them.
    int rotary_dims = 0;
    double rope_theta = 10000;
    std::string rope_scaling;
    double rope_factor = 1, rope_low_freq_factor = 1, rope_high_freq_factor = 4;
    int rope_original_max_positions = 8192;
    int sliding_window = 0;  // Mistral's: inputs longer than it are refused (0: none)

    int headDim() const { return head_dim > 0 ? head_dim : n_head > 0 ? n_embd / n_head : 0; }
    int kvHeads() const { return n_kv_head > 0 ? n_kv_head : n_head; }
    // "GPT-2", "Llama", "Mistral", "Qwen2", "GPT-NeoX"
    std::string familyName() const;
    // Rotated share of a head, 0..1 (rotary_dims / d_k).
    double rotaryShare() const { return headDim() > 0 ? double(rotary_dims) / headDim() : 0; }
};

struct LayerNorm {
    Eigen::RowVectorXf weight, bias;  // (d_model); bias empty for RMSNorm
};

struct Block {
    LayerNorm ln_1;
    AttentionWeights attention; // as stored: q, k, v (fused or not) and o, biases or none
    LayerNorm ln_2;
    LinearWeight W_fc;          // MLP in (n_inner, d): x W_fc^T (GPT-2 c_fc, NeoX dense_h_to_4h, Llama up_proj)
    LinearWeight W_gate;        // gated MLP only (n_inner, d): Llama's gate_proj; empty otherwise
    Eigen::RowVectorXf b_fc;    // (n_inner) or empty
    Eigen::RowVectorXf b_gate;  // (n_inner) or empty
    LinearWeight W_proj;        // MLP out (d, n_inner): GPT-2 mlp.c_proj, NeoX dense_4h_to_h, Llama down_proj
    Eigen::RowVectorXf b_proj;  // (d) or empty
};

struct Model {
    ModelConfig config;
    LinearWeight wte;           // token embeddings (vocab_size, d): row t is token t
    Eigen::MatrixXf wpe_t;      // position embeddings as columns (d, n_positions); empty without
    Eigen::VectorXf inverse_frequencies;  // rotary theta_p (rotary_dims / 2), scaling applied; empty without
    std::vector<Block> blocks;
    LayerNorm ln_f;
    LinearWeight lm_head;       // untied output embedding (vocab_size, d); empty when tied to wte
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
// in float as Hugging Face computes them, with Llama 3's rope_scaling ("llama3": low
// frequencies divided by factor, a smooth blend between low_freq and high_freq wavelengths)
// applied. Empty when rotary_dims is 0.
Eigen::VectorXf rotaryInverseFrequencies(const ModelConfig& config);

}  // namespace headscope::model
