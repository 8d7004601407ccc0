#pragma once
// A decoder-only language model, loaded once: today the GPT-2 family (Radford et al. 2019;
// Hugging Face GPT2LMHeadModel). Immutable
// once loaded and shared by everything that shows it: std::shared_ptr<const Model>.
// Row-vector layout as in core/Weights.h: activations are (n, d_model), X W.
//   block l: a = X + Attn(LN_1(X)),  X' = a + MLP(LN_2(a)),  MLP(x) = gelu(x W_fc + b_fc) W_proj + b_proj
//   logits = LN_f(X_L) wte^T (or lm_head^T when the checkpoint has an untied lm_head)
// Each block's attention is a headscope::Weights (W_Q, W_K, W_V (d, h*d_k) and W_O (d, d)
// with biases): GPT-2's Conv1D c_attn weight (d, 3d) is exactly [W_Q | W_K | W_V] and
// c_proj is W_O, so core's forward() and headSpectra() run on it unchanged.
// Matrices that are only multiplied (the MLP, the embeddings) are kept transposed, in the
// memory order of the checkpoint, so loading them is one straight copy.

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "Weights.h"
#include "text/Tokenizer.h"

namespace headscope::model {

enum class Activation {
    GeluTanh,  // "gelu_new", "gelu_pytorch_tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluErf,   // "gelu": 0.5 x (1 + erf(x / sqrt 2))
    Relu,      // "relu"
};

struct ModelConfig {
    int n_layer = 0;
    int n_head = 0;
    int n_embd = 0;       // d_model
    int n_positions = 0;  // longest input
    int vocab_size = 0;   // rows of wte
    int n_inner = 0;      // MLP width (4 n_embd unless config.json says otherwise)
    double layer_norm_epsilon = 1e-5;
    Activation activation = Activation::GeluTanh;
    std::string activation_name = "gelu_new";
    bool scale_attn_weights = true;  // logits * 1/sqrt(d_k)
    bool tie_word_embeddings = true; // false: the checkpoint must hold lm_head.weight

    int headDim() const { return n_head > 0 ? n_embd / n_head : 0; }
};

struct LayerNorm {
    Eigen::RowVectorXf weight, bias;  // (d_model)
};

struct Block {
    LayerNorm ln_1;
    Weights attention;          // W_Q, W_K, W_V (d, d), W_O (d, d), biases (d)
    LayerNorm ln_2;
    Eigen::MatrixXf W_fc_t;     // c_fc weight transposed (n_inner, d): MLP in = x W_fc_t^T
    Eigen::RowVectorXf b_fc;    // (n_inner)
    Eigen::MatrixXf W_proj_t;   // mlp.c_proj weight transposed (d, n_inner)
    Eigen::RowVectorXf b_proj;  // (d)
};

struct Model {
    ModelConfig config;
    Eigen::MatrixXf wte_t;      // token embeddings as columns (d, vocab_size): column t is token t
    Eigen::MatrixXf wpe_t;      // position embeddings as columns (d, n_positions)
    std::vector<Block> blocks;
    LayerNorm ln_f;
    Eigen::MatrixXf lm_head_t;  // untied output embedding (d, vocab_size); empty when tied to wte
    std::shared_ptr<const text::Tokenizer> tokenizer;  // never null once loaded
    std::string directory;      // where it was loaded from
    std::string dtype;          // of the stored weights: F32, F16 or BF16

    bool tiedOutput() const { return lm_head_t.size() == 0; }
    // (d, vocab_size): logits = h (n, d) * outputEmbeddingT()
    const Eigen::MatrixXf& outputEmbeddingT() const { return tiedOutput() ? wte_t : lm_head_t; }
    long long parameterCount() const;
};

using ModelPtr = std::shared_ptr<const Model>;

}  // namespace headscope::model
