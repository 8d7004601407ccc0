#include "model/Attribution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace headscope::model {

namespace {

// W^T v (in) for a stored W (out, in) and v (out), in double: W read a block of rows at a time
// in the paper's layout (in, count), each row then a contiguous column, never whole (a 1B
// model's W_O is 16 MiB of float per layer).
Eigen::VectorXd transposedTimes(const LinearWeight& W, const Eigen::VectorXd& v) {
    constexpr Eigen::Index kBlockRows = 64;
    Eigen::VectorXd product = Eigen::VectorXd::Zero(W.cols());  // (in)
    for (Eigen::Index begin = 0; begin < W.rows(); begin += kBlockRows) {
        const Eigen::Index count = std::min(kBlockRows, W.rows() - begin);
        const Eigen::MatrixXf rows = W.transposedRows(begin, count);  // (in, count)
        for (Eigen::Index k = 0; k < count; ++k) product.noalias() += v(begin + k) * rows.col(k).cast<double>();
    }
    return product;
}

}  // namespace

double DirectAttribution::total() const {
    double sum = embedding + final_bias + heads.sum();
    for (double b : attention_bias) sum += b;
    for (double m : mlp) sum += m;
    return sum;
}

DirectAttribution directAttribution(const Model& model, const Trace& trace, int position, int token,
                                    const Trace* frozen) {
    const ModelConfig& c = model.config;
    if (c.encoder || model.ln_f.weight.size() == 0)
        throw std::invalid_argument("direct logit attribution needs a decoder's final norm before its output; " +
                                    c.familyName() + " is an encoder, whose masked-LM head has none");
    const int n = trace.n();
    if (position < 0) position = n - 1;
    if (position >= n)
        throw std::invalid_argument("position " + std::to_string(position) + " does not exist: the input has " +
                                    std::to_string(n) + " tokens");
    // Row of trace.logits holding `position`: all of them, or only the last.
    const Eigen::Index logits_row = trace.logits.rows() == n ? position : (position == n - 1 ? 0 : -1);
    if (logits_row < 0)
        throw std::invalid_argument("the trace holds the logits of the last position only (run with all_logits)");
    if (token < 0) {
        Eigen::Index best = 0;
        trace.logits.row(logits_row).maxCoeff(&best);
        token = static_cast<int>(best);
    }
    if (token >= c.vocab_size)
        throw std::invalid_argument("token " + std::to_string(token) + " is outside the vocabulary 0.." +
                                    std::to_string(c.vocab_size - 1));
    const Trace& norm_trace = frozen ? *frozen : trace;
    if (norm_trace.n() != n) throw std::invalid_argument("the frozen trace has another input length");

    DirectAttribution a;
    a.position = position;
    a.token = token;
    a.logit = trace.logits(logits_row, token);

    // LayerNorm: sigma = sqrt(var(x_L[p]) + eps), biased variance as torch.nn.LayerNorm, and each
    // component centred; RMSNorm: sigma = sqrt(mean(x_L[p]^2) + eps), nothing centred, no bias.
    const bool centred = c.norm == NormKind::LayerNorm;
    const Eigen::RowVectorXd x_frozen = norm_trace.final_residual.row(position).cast<double>();  // (d)
    const double spread = centred ? (x_frozen.array() - x_frozen.mean()).square().mean() : x_frozen.squaredNorm() / double(x_frozen.size());
    a.scale = std::sqrt(spread + c.layer_norm_epsilon);

    // w (d) = gamma * u_t / sigma: direct(c) = (c - mean(c)) . w = c . (w - mean(w))  (RMSNorm: c . w)
    const Eigen::VectorXd u = model.outputEmbedding().row(token).transpose().cast<double>();  // (d)
    const Eigen::VectorXd w = model.ln_f.weight.transpose().cast<double>().cwiseProduct(u) / a.scale;
    const Eigen::VectorXd reads = centred ? Eigen::VectorXd(w.array() - w.mean()) : w;  // (d)
    const auto direct = [&reads](const Eigen::Ref<const Eigen::RowVectorXd>& component) {
        return component.dot(reads);
    };
    a.final_bias = model.ln_f.bias.size() ? model.ln_f.bias.cast<double>().dot(u.transpose()) : 0.0;

    const int L = static_cast<int>(trace.layers.size());
    a.heads = Eigen::MatrixXd::Zero(L, c.n_head);
    a.attention_bias.assign(L, 0.0);
    a.mlp.assign(L, 0.0);
    a.embedding = direct(trace.layers.front().residual.row(position).cast<double>());
    for (int l = 0; l < L; ++l) {
        const AttentionWeights& weights = model.blocks[l].attention;
        const Results& r = trace.layers[l].attention;
        // A long input's trace keeps a layer's outputs at the last position only (keep_maps false).
        const Eigen::Index row = r.output.rows() == n ? position : position == n - 1 ? r.output.rows() - 1 : -1;
        if (row < 0)
            throw std::invalid_argument("the run kept layer " + std::to_string(l) +
                                        "'s outputs at the last position only (a long input)");
        // direct(c_{l,i}) with c_{l,i} (d) = out_i[p] (d_v) W_O,i (d_v, d) is out_i[p] . (W_O,i reads):
        // every head's W_O,i reads at once, from W_O stored (d, h*d_v), as W_O^T.
        const Eigen::VectorXd head_reads = transposedTimes(weights.W_O, reads);  // (h*d_v)
        for (int i = 0; i < c.n_head; ++i) {
            const Eigen::RowVectorXd out = r.heads[i].output.row(row).cast<double>();  // (d_v)
            a.heads(l, i) = out.dot(head_reads.segment(Eigen::Index(i) * weights.d_v, weights.d_v));
        }
        if (weights.hasBias()) a.attention_bias[l] = direct(weights.b_O.cast<double>());
        // m_l = X_{l+1}[p] - X_l[p] - attention output[p]
        const Eigen::MatrixXf& next = l + 1 < L ? trace.layers[l + 1].residual : trace.final_residual;
        const Eigen::RowVectorXd mlp = next.row(position).cast<double>() -
                                       trace.layers[l].residual.row(position).cast<double>() -
                                       r.output.row(row).cast<double>();
        a.mlp[l] = direct(mlp);
    }
    return a;
}

}  // namespace headscope::model
