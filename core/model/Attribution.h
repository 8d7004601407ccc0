#pragma once
// Direct logit attribution: how much each component writes, directly, into the logit of one
// token at one position (the predicted token at the last position by default).
// The residual stream at position p is a sum of components,
//   x_L = e + sum_l ( sum_i c_{l,i} + b_O,l + m_l )                      (d)
//   e = X_0[p] (token + position embeddings), c_{l,i} = out_{l,i}[p] (d_v) W_O,i (d_v, d) (head i's
//   rows of W_O), b_O,l the attention bias, m_l = X_{l+1}[p] - X_l[p] - attention_l.output[p] (the
//   MLP's output with its bias),
// and the logit of token t is LN_f(x_L) . u_t with u_t the unembedding column (d). LayerNorm is
// (x - mean(x)) / sigma * gamma + beta. With sigma frozen (computed once, on the residual of the
// unablated run: `frozen`), the norm is linear, and since centring is linear too we centre each
// component itself:
//   direct(c) = ((c - mean(c)) / sigma * gamma) . u_t              (one number per component)
//   logit_t   = direct(e) + sum_l ( sum_i direct(c_{l,i}) + direct(b_O,l) + direct(m_l) ) + beta . u_t
// exactly when sigma is the scale of this very trace (the mean term is not left over: each
// component carries its own share of it). In double from the float trace: the identity holds to
// float rounding (tests: 1e-4 relative to the largest component).
// With RMSNorm (Llama, Mistral, Qwen2) sigma is the root mean square and nothing is centred.

#include <Eigen/Core>
#include <vector>

#include "model/Forward.h"

namespace headscope::model {

struct DirectAttribution {
    int position = 0;
    int token = 0;               // the unembedding column u_t
    double scale = 0;            // sigma = sqrt(var(x_L[p]) + eps), frozen
    Eigen::MatrixXd heads;       // (n_layer, n_head): direct(c_{l,i})
    std::vector<double> attention_bias;  // (n_layer): direct(b_O,l); 0 without biases
    std::vector<double> mlp;     // (n_layer): direct(m_l)
    double embedding = 0;        // direct(e)
    double final_bias = 0;       // beta . u_t
    double logit = 0;            // the trace's logit of token t at p, from the forward pass

    // Every component's direct contribution added up: equals `logit` when sigma is this trace's.
    double total() const;
};

// position: -1 for the last; token: -1 for the trace's arg-max at that position (its logits must
// include the position: all_logits, or the last one). frozen: the trace whose residual gives
// sigma (the unablated run); null for `trace` itself. std::invalid_argument for a position or
// token out of range, and for an encoder (no final norm before a next-token output).
DirectAttribution directAttribution(const Model& model, const Trace& trace, int position = -1, int token = -1,
                                    const Trace* frozen = nullptr);

}  // namespace headscope::model
