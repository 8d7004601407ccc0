#include "ScoreBreakdown.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "QueryKeyMap.h"

namespace headscope {

namespace {

void checkCell(const Analysis& a, int head, int row, int col) {
    const int heads = static_cast<int>(a.results.heads.size());
    if (head < 0 || head >= heads) throw std::out_of_range("no head " + std::to_string(head));
    if (row < 0 || row >= a.results.allowed.rows()) throw std::out_of_range("no query " + std::to_string(row));
    if (col < 0 || col >= a.results.allowed.cols()) throw std::out_of_range("no key " + std::to_string(col));
}

}  // namespace

std::string maskReason(const Analysis& a, int row, int col) {
    if (a.results.allowed(row, col)) return {};
    const auto& padded = a.config.padded_keys;
    const std::string key = "key " + std::to_string(col), query = "query " + std::to_string(row);
    if (std::find(padded.begin(), padded.end(), col) != padded.end()) return key + " is padded";
    if (a.config.mask == MaskKind::Causal && col > row) return key + " is after " + query + " (causal mask)";
    if (a.sliding_window > 0 && col <= row - a.sliding_window)
        return key + " is outside " + query + "'s sliding window of " + std::to_string(a.sliding_window) + " keys (" +
               std::to_string(row - a.sliding_window + 1) + " to " + std::to_string(row) + ")";
    return key + " is masked for " + query;
}

ScoreBreakdown scoreBreakdown(const Analysis& a, int head, int row, int col, const Eigen::MatrixXf* w_qk) {
    checkCell(a, head, row, col);
    const Weights& w = a.weights();
    const HeadResult& hr = a.results.heads[std::size_t(head)];
    ScoreBreakdown b;
    b.head = head;
    b.kv_head = w.kvHeadOf(head);
    b.row = row;
    b.col = col;
    b.d_k = w.d_k;
    b.query_token = a.input.query.tokens.at(std::size_t(row));
    b.key_token = a.input.key_value.tokens.at(std::size_t(col));
    b.softmax_row = hr.weights.row(row).transpose();  // (n_kv), the engine's
    b.weight = hr.weights(row, col);
    b.reason = maskReason(a, row, col);
    b.masked = !b.reason.empty();
    if (b.masked) return b;

    const int d_k = w.d_k;
    // Q (n_q, h*d_k): head i reads columns i*d_k .. ; K (n_kv, kv*d_k): columns g*d_k ..
    b.q = a.results.Q.row(row).segment(Eigen::Index(head) * d_k, d_k).transpose();      // (d_k)
    b.k = a.results.K.row(col).segment(Eigen::Index(b.kv_head) * d_k, d_k).transpose();  // (d_k)
    b.product = b.q.cwiseProduct(b.k);                                                    // (d_k)
    if (a.results.Q_projected.size() && a.results.K_projected.size()) {
        b.q_projected = a.results.Q_projected.row(row).segment(Eigen::Index(head) * d_k, d_k).transpose();
        b.k_projected = a.results.K_projected.row(col).segment(Eigen::Index(b.kv_head) * d_k, d_k).transpose();
    }
    b.dot = b.product.cast<double>().sum();
    const AttentionOptions options = a.attentionOptions();
    b.scale = options.scale ? 1.0 / std::sqrt(options.scale_base > 0 ? options.scale_base : double(d_k)) : 1.0;
    b.temperature = options.temperature;
    b.factor = options.logitFactor(d_k);  // float, as the engine multiplies
    b.logit = b.dot * b.factor;
    b.softcap = options.softcap;
    b.capped_logit = b.softcap > 0 ? b.softcap * std::tanh(b.logit / b.softcap) : b.logit;
    b.engine_logit = a.logitAt(head, row, col);

    if (a.rotary.enabled()) {
        const Rotary& r = a.rotary;
        const int query_position = r.query_positions.empty() ? row : r.query_positions.at(std::size_t(row));
        const int key_position = r.key_positions.empty() ? col : r.key_positions.at(std::size_t(col));
        b.delta = key_position - query_position;
        const int m = r.dims() / 2;
        PairSplit split;
        for (int p = 0; p < m; ++p) {
            const double theta = r.inverse_frequencies(p);
            // pair p: dims p and p + m of the rotated q, k (rotate-half layout)
            split.pairs.push_back({theta, theta * b.delta, double(b.product(p)) + double(b.product(p + m))});
        }
        split.unrotated = b.product.tail(d_k - 2 * m).cast<double>().sum();
        split.total = split.unrotated;
        for (const RotaryPair& pair : split.pairs) split.total += pair.contribution;
        b.rotary_pairs = split;
    }
    // With rotary positions the merged form needs the rotation between the positions
    // (RotaryCircuits.h W_QK,i(Delta)): the plain W_QK,i would not give this logit, so no bilinear split.
    if (!a.rotary.enabled() && a.qk_norm.empty() && w_qk && w_qk->rows() == w.dModel() && w_qk->cols() == w.dModel()) {
        // x_i (d_model), x_j (d_model); W_QK,i (d_model, d_model)
        const Eigen::RowVectorXf x_i = a.input.query.X.row(row), x_j = a.input.key_value.X.row(col);
        BilinearScore s;
        const Eigen::RowVectorXf xw = x_i * (*w_qk);  // (d_model)
        s.main = xw.cast<double>().dot(x_j.cast<double>());
        if (w.hasBias()) {
            const Eigen::RowVectorXf b_q = w.b_Q.segment(Eigen::Index(head) * d_k, d_k);       // (d_k)
            const Eigen::RowVectorXf b_k = w.b_K.segment(Eigen::Index(b.kv_head) * d_k, d_k);  // (d_k)
            const Eigen::RowVectorXf xq = x_i * w.queryHead(head);  // (d_k) x_i W_i^Q
            const Eigen::RowVectorXf xk = x_j * w.keyHead(head);    // (d_k) x_j W_g^K
            s.query_bias = xq.cast<double>().dot(b_k.cast<double>());
            s.key_bias = b_q.cast<double>().dot(xk.cast<double>());
            s.bias_bias = b_q.cast<double>().dot(b_k.cast<double>());
        }
        s.sum = s.main + s.query_bias + s.key_bias + s.bias_bias;
        s.logit = s.sum * b.factor;
        s.difference = s.logit - b.logit;
        b.bilinear = s;
    }
    return b;
}

std::pair<int, int> defaultCell(const Analysis& a, int head) {
    const int n_q = static_cast<int>(a.results.allowed.rows()), n_kv = static_cast<int>(a.results.allowed.cols());
    if (n_q == 0 || n_kv == 0 || a.results.heads.empty()) return {0, 0};
    head = std::clamp(head, 0, static_cast<int>(a.results.heads.size()) - 1);
    const int best = mostAttendedKey(a, head, n_q - 1);
    return {n_q - 1, best >= 0 ? best : n_kv - 1};
}

}  // namespace headscope
