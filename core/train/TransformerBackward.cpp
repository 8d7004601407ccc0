// The backward pass of Transformer.h: every parameter's gradient from d loss / d logits, the
// forward's steps in reverse, each with its shapes.
#include <cmath>

#include "train/Kernels.h"
#include "train/Transformer.h"

namespace headscope::train {

namespace {

using ConstMatrix = Eigen::Map<const Eigen::MatrixXf>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXf>;
using Matrix = Eigen::Map<Eigen::MatrixXf>;
using Row = Eigen::Map<Eigen::RowVectorXf>;

}  // namespace

void backwardPass(const TrainConfig& c, const ParameterLayout& layout, const float* p, const int* ids,
                  Activations& act, float* g) {
    const int n = act.n, d = c.d_model, h = c.heads, dk = c.headDim();
    const Eigen::Index N = Eigen::Index(act.sequences) * n;
    const float scale = 1.0f / std::sqrt(float(dk));

    // logits^T (vocab, N) = E LN_f(X)^T:  dE (vocab, d) += dlogits^T LN_f(X),  dLN_f (N, d) = dlogits E
    const Eigen::Index unembedding = layout.lm_head >= 0 ? layout.lm_head : layout.wte;
    Matrix(g + unembedding, c.vocab, d).noalias() += act.dlogits_t * act.ln_f.out;
    act.scratch.noalias() = act.dlogits_t.transpose() * ConstMatrix(p + unembedding, c.vocab, d);
    Eigen::MatrixXf& dx = act.dx;  // d loss / d residual stream (N, d), carried down the layers
    dx.setZero(N, d);
    kernels::layerNormBackward(act.scratch, ConstRow(p + layout.ln_f_weight, d), act.ln_f, dx,
                               Row(g + layout.ln_f_weight, d), Row(g + layout.ln_f_bias, d));

    for (int l = c.layers - 1; l >= 0; --l) {
        const LayerActivations& la = act.layers[std::size_t(l)];
        const LayerOffsets& o = layout.layers[std::size_t(l)];
        if (c.mlp) {
            const int inner = c.mlpWidth();
            // X += gelu(U) W_proj + b_proj:  dW_proj (4d, d) += gelu(U)^T dX,  d gelu(U) (N, 4d) = dX W_proj^T
            Matrix(g + o.mlp_proj_weight, inner, d).noalias() += la.fc_act.transpose() * dx;
            Row(g + o.mlp_proj_bias, d) += dx.colwise().sum();
            Eigen::MatrixXf du = dx * ConstMatrix(p + o.mlp_proj_weight, inner, d).transpose();  // (N, 4d)
            kernels::geluBackward(la.fc_pre, du);
            // U = LN_2(X) W_fc + b_fc:  dW_fc (d, 4d) += LN_2(X)^T dU,  dLN_2 (N, d) = dU W_fc^T
            Matrix(g + o.c_fc_weight, d, inner).noalias() += la.ln_2.out.transpose() * du;
            Row(g + o.c_fc_bias, inner) += du.colwise().sum();
            act.scratch.noalias() = du * ConstMatrix(p + o.c_fc_weight, d, inner).transpose();
            kernels::layerNormBackward(act.scratch, ConstRow(p + o.ln_2_weight, d), la.ln_2, dx,
                                       Row(g + o.ln_2_weight, d), Row(g + o.ln_2_bias, d));
        }
        // X += concat W_O + b_O:  dW_O (d, d) += concat^T dX,  dconcat (N, d) = dX W_O^T
        Matrix(g + o.c_proj_weight, d, d).noalias() += la.concat.transpose() * dx;
        Row(g + o.c_proj_bias, d) += dx.colwise().sum();
        act.scratch.noalias() = dx * ConstMatrix(p + o.c_proj_weight, d, d).transpose();
        const Eigen::MatrixXf& dconcat = act.scratch;
        act.dqkv.resize(N, 3 * d);
        for (int s = 0; s < act.sequences; ++s)
            for (int j = 0; j < h; ++j) {
                const Eigen::Index row = Eigen::Index(s) * n;
                const auto q = la.qkv.block(row, j * dk, n, dk), k = la.qkv.block(row, d + j * dk, n, dk),
                           v = la.qkv.block(row, 2 * d + j * dk, n, dk);    // (n, d_k)
                const auto d_out = dconcat.block(row, j * dk, n, dk);       // (n queries, d_k)
                const Eigen::MatrixXf& w_t = la.weights_t[std::size_t(s) * h + j];  // (n keys, n queries)
                // O = W V:  dV (n, d_k) = W^T dO,  dW^T (n keys, n queries) = V dO^T
                act.dqkv.block(row, 2 * d + j * dk, n, dk).noalias() = w_t * d_out;
                act.dw_t.noalias() = v * d_out.transpose();
                // softmax, per query column: dS = W .* (dW - sum(dW .* W)), times the 1/sqrt(d_k) scale
                const Eigen::RowVectorXf dot = (act.dw_t.array() * w_t.array()).colwise().sum();  // (n queries)
                act.ds_t = ((act.dw_t.array().rowwise() - dot.array()) * w_t.array()) * scale;
                // S^T = K Q^T:  dQ (n, d_k) = dS K = dS^T^T K,  dK (n, d_k) = dS^T Q
                act.dqkv.block(row, j * dk, n, dk).noalias() = act.ds_t.transpose() * k;
                act.dqkv.block(row, d + j * dk, n, dk).noalias() = act.ds_t * q;
            }
        // QKV = LN_1(X) W_attn + b_attn:  dW_attn (d, 3d) += LN_1(X)^T dQKV,  dLN_1 (N, d) = dQKV W_attn^T
        Matrix(g + o.c_attn_weight, d, 3 * d).noalias() += la.ln_1.out.transpose() * act.dqkv;
        Row(g + o.c_attn_bias, 3 * d) += act.dqkv.colwise().sum();
        act.scratch.noalias() = act.dqkv * ConstMatrix(p + o.c_attn_weight, d, 3 * d).transpose();
        kernels::layerNormBackward(act.scratch, ConstRow(p + o.ln_1_weight, d), la.ln_1, dx,
                                   Row(g + o.ln_1_weight, d), Row(g + o.ln_1_bias, d));
    }
    // X_0 = wte[ids] + wpe[t]: each row's gradient goes to its token's and its position's row
    Matrix dwte(g + layout.wte, c.vocab, d), dwpe(g + layout.wpe, c.context, d);
    for (Eigen::Index r = 0; r < N; ++r) {
        dwte.row(ids[r]) += dx.row(r);
        dwpe.row(r % n) += dx.row(r);
    }
}

}  // namespace headscope::train
