// The forward pass and the loss of Transformer.h.
#include <cmath>

#include "train/Kernels.h"
#include "train/Transformer.h"

namespace headscope::train {

namespace {

using ConstMatrix = Eigen::Map<const Eigen::MatrixXf>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXf>;

// Softmax of each column i of scores_t (n keys, n queries) over keys 0..i; later keys get 0.
void causalSoftmaxColumns(Eigen::MatrixXf& scores_t) {
    const Eigen::Index n = scores_t.rows();
    for (Eigen::Index i = 0; i < scores_t.cols(); ++i) {
        auto visible = scores_t.col(i).head(i + 1);
        const float top = visible.maxCoeff();
        visible = (visible.array() - top).exp().matrix();
        visible /= visible.sum();
        scores_t.col(i).tail(n - i - 1).setZero();
    }
}

}  // namespace

Eigen::MatrixXf Activations::attention(int layer, int sequence, int head) const {
    const int heads = static_cast<int>(layers[layer].weights_t.size()) / sequences;
    return layers[layer].weights_t[std::size_t(sequence) * heads + head].transpose();
}

void forwardPass(const TrainConfig& c, const ParameterLayout& layout, const float* p, const int* ids,
                 int sequences, Activations& act) {
    const int n = c.context, d = c.d_model, h = c.heads, dk = c.headDim();
    const Eigen::Index N = Eigen::Index(sequences) * n;
    act.sequences = sequences;
    act.n = n;
    act.layers.resize(std::size_t(c.layers));

    // X_0 (N, d) = wte[ids] + wpe[t]
    const ConstMatrix wte(p + layout.wte, c.vocab, d), wpe(p + layout.wpe, c.context, d);
    Eigen::MatrixXf& x = act.residual;
    x.resize(N, d);
    for (Eigen::Index r = 0; r < N; ++r) x.row(r) = wte.row(ids[r]) + wpe.row(r % n);

    const float scale = 1.0f / std::sqrt(float(dk));
    for (int l = 0; l < c.layers; ++l) {
        LayerActivations& la = act.layers[std::size_t(l)];
        const LayerOffsets& o = layout.layers[std::size_t(l)];
        kernels::layerNormForward(x, ConstRow(p + o.ln_1_weight, d), ConstRow(p + o.ln_1_bias, d), la.ln_1);
        // QKV (N, 3d) = LN_1(X) (N, d) W_attn (d, 3d) + b_attn
        la.qkv.noalias() = la.ln_1.out * ConstMatrix(p + o.c_attn_weight, d, 3 * d);
        la.qkv.rowwise() += ConstRow(p + o.c_attn_bias, 3 * d);
        la.weights_t.resize(std::size_t(sequences) * h);
        la.concat.resize(N, d);
        for (int s = 0; s < sequences; ++s)
            for (int j = 0; j < h; ++j) {
                const auto q = la.qkv.block(Eigen::Index(s) * n, j * dk, n, dk);           // (n, d_k)
                const auto k = la.qkv.block(Eigen::Index(s) * n, d + j * dk, n, dk);       // (n, d_k)
                const auto v = la.qkv.block(Eigen::Index(s) * n, 2 * d + j * dk, n, dk);   // (n, d_k)
                Eigen::MatrixXf& w_t = la.weights_t[std::size_t(s) * h + j];
                w_t.noalias() = k * q.transpose();  // (n keys, n queries) = (Q K^T)^T
                w_t *= scale;
                causalSoftmaxColumns(w_t);
                la.concat.block(Eigen::Index(s) * n, j * dk, n, dk).noalias() = w_t.transpose() * v;  // W V (n, d_k)
            }
        // X += concat (N, d) W_O (d, d) + b_O
        x.noalias() += la.concat * ConstMatrix(p + o.c_proj_weight, d, d);
        x.rowwise() += ConstRow(p + o.c_proj_bias, d);
        if (c.mlp) {
            const int inner = c.mlpWidth();
            kernels::layerNormForward(x, ConstRow(p + o.ln_2_weight, d), ConstRow(p + o.ln_2_bias, d), la.ln_2);
            // (N, d) W_fc (d, 4d) -> (N, 4d) -> GELU -> W_proj (4d, d) -> (N, d)
            la.fc_pre.noalias() = la.ln_2.out * ConstMatrix(p + o.c_fc_weight, d, inner);
            la.fc_pre.rowwise() += ConstRow(p + o.c_fc_bias, inner);
            kernels::geluForward(la.fc_pre, la.fc_act);
            x.noalias() += la.fc_act * ConstMatrix(p + o.mlp_proj_weight, inner, d);
            x.rowwise() += ConstRow(p + o.mlp_proj_bias, d);
        }
    }
    kernels::layerNormForward(x, ConstRow(p + layout.ln_f_weight, d), ConstRow(p + layout.ln_f_bias, d), act.ln_f);
    // logits^T (vocab, N) = E (vocab, d) LN_f(X)^T
    const ConstMatrix unembedding(p + (layout.lm_head >= 0 ? layout.lm_head : layout.wte), c.vocab, d);
    act.logits_t.noalias() = unembedding * act.ln_f.out.transpose();
}

double crossEntropy(const int* ids, const int* lengths, double divisor, bool gradient, Activations& act) {
    const Eigen::Index N = act.logits_t.cols();
    if (gradient) act.dlogits_t.resize(act.logits_t.rows(), N);
    double total = 0;
    const float inverse = static_cast<float>(1.0 / divisor);
    for (Eigen::Index r = 0; r < N; ++r) {
        const int length = lengths ? lengths[r / act.n] : act.n;
        if (r % act.n >= length - 1) {  // the last counted position has no next token; padding none
            if (gradient) act.dlogits_t.col(r).setZero();
            continue;
        }
        const auto logits = act.logits_t.col(r);  // (vocab)
        const int target = ids[r + 1];
        const float top = logits.maxCoeff();
        const Eigen::ArrayXf e = (logits.array() - top).exp();
        const double sum = e.cast<double>().sum();
        total += std::log(sum) + top - logits(target);
        if (gradient) {
            act.dlogits_t.col(r) = (e * static_cast<float>(1.0 / sum)).matrix();
            act.dlogits_t(target, r) -= 1.0f;
            act.dlogits_t.col(r) *= inverse;
        }
    }
    return total / divisor;
}

}  // namespace headscope::train
