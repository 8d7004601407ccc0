#pragma once
// The forward and backward pass of the small GPT-2-shaped transformer, written out (llm.c
// style), over a batch of S sequences of n tokens stacked into N = S n rows:
//   X_0 = wte[ids] + wpe[t]                                         (N, d)
//   block l: A = LN_1(X), QKV = A W_attn + b_attn                   (N, 3d)
//            head j of sequence s: Q, K, V its (n, d_k) blocks,
//            W = softmax_causal(Q K^T / sqrt(d_k)) (n, n), O = W V   (n, d_k) -> concat (N, d)
//            X += concat W_O + b_O
//            with an MLP: X += gelu_tanh(LN_2(X) W_fc + b_fc) W_proj + b_proj   (N, 4d) -> (N, d)
//   logits = LN_f(X) E^T  (N, vocab), E = lm_head or wte (tied)
// It computes what GPT-2 computes (LayerNorm eps 1e-5, GELU "gelu_new"); the weights are the
// Parameters.h views. Attention weights are kept transposed, keys down and queries across,
// so that each query's softmax is a contiguous column; the logits likewise (vocab, N).

#include <Eigen/Core>
#include <vector>

#include "train/Parameters.h"
#include "train/TrainConfig.h"

namespace headscope::train {

struct LayerNormCache {
    Eigen::MatrixXf normalized;  // (N, d) (x - mean) / sqrt(var + eps)
    Eigen::VectorXf rstd;        // (N) 1 / sqrt(var + eps)
    Eigen::MatrixXf out;         // (N, d) normalized * weight + bias
};

struct LayerActivations {
    LayerNormCache ln_1;
    Eigen::MatrixXf qkv;                      // (N, 3d) [Q | K | V], biases added
    std::vector<Eigen::MatrixXf> weights_t;   // S * heads of (n keys, n queries): sequence s, head j at s * heads + j
    Eigen::MatrixXf concat;                   // (N, d) every head's output side by side
    LayerNormCache ln_2;                      // with an MLP:
    Eigen::MatrixXf fc_pre, fc_act;           // (N, 4d) before and after the GELU
};

// Everything a forward pass keeps for the backward pass, plus scratch reused between steps.
struct Activations {
    int sequences = 0, n = 0;
    std::vector<LayerActivations> layers;
    LayerNormCache ln_f;
    Eigen::MatrixXf logits_t;   // (vocab, N): column s * n + t is position t of sequence s
    Eigen::MatrixXf dlogits_t;  // (vocab, N) d loss / d logits, from crossEntropy(..., gradient)
    Eigen::MatrixXf residual, dx, scratch, dqkv, dw_t, ds_t;  // scratch of the passes

    // Sequence s, head j of layer l: attention weights (n queries, n keys).
    Eigen::MatrixXf attention(int layer, int sequence, int head) const;
};

// ids (sequences, n) row-major -> activations (logits_t and every cache the backward reads).
void forwardPass(const TrainConfig& config, const ParameterLayout& layout, const float* parameters,
                 const int* ids, int sequences, Activations& act);

// Cross-entropy of next-token prediction summed over this pass' positions t < lengths[s] - 1
// (target ids[t + 1]; lengths nullptr: every sequence counts all n tokens) and divided by
// `divisor` (the number of targets in the whole batch, so that shards add up to the mean).
// With gradient, act.dlogits_t = (softmax - one_hot(target)) / divisor, 0 where nothing counts.
double crossEntropy(const int* ids, const int* lengths, double divisor, bool gradient, Activations& act);

// Accumulates (+=) d loss / d parameters into gradient (layout.size()), from act.dlogits_t.
void backwardPass(const TrainConfig& config, const ParameterLayout& layout, const float* parameters,
                  const int* ids, Activations& act, float* gradient);

}  // namespace headscope::train
