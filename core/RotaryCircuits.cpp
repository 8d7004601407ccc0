#include "RotaryCircuits.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "Parallel.h"

namespace headscope {

namespace {
int pairsOf(const Rotary& rotary, int d_k) {
    const int m = static_cast<int>(rotary.inverse_frequencies.size());
    if (2 * m > d_k)
        throw std::invalid_argument("rotary positions turn " + std::to_string(2 * m) +
                                    " dimensions of each head, which does not fit heads of size " + std::to_string(d_k));
    return m;
}
}  // namespace

Eigen::MatrixXd relativeRotation(const Rotary& rotary, int d_k, int delta) {
    const int m = pairsOf(rotary, d_k);
    // Row-vector convention: x R(t) turns pair p by t theta_p; M(Delta) = R(-Delta).
    Eigen::MatrixXd M = Eigen::MatrixXd::Identity(d_k, d_k);  // (d_k, d_k)
    for (int p = 0; p < m; ++p) {
        const double angle = -double(delta) * double(rotary.inverse_frequencies(p));
        const double c = std::cos(angle), s = std::sin(angle);
        // a' = a c - b s, b' = b c + a s  for the row (a, b) at dims (p, p + m)
        M(p, p) = c;
        M(p + m, p) = -s;
        M(p, p + m) = s;
        M(p + m, p + m) = c;
    }
    return M;
}

ThinFactors rotatedQueryKey(const Weights& w, int head, const Rotary& rotary, int delta) {
    if (head < 0 || head >= w.heads) throw std::out_of_range("no head " + std::to_string(head));
    const Eigen::MatrixXd M = relativeRotation(rotary, w.d_k, delta);  // (d_k, d_k)
    ThinFactors f;
    f.A = w.queryHead(head).cast<double>();                      // (d_model, d_k)
    f.B = w.keyHead(head).cast<double>() * M.transpose();        // (d_model, d_k): W_K M^T
    return f;
}

Spectrum rotatedQueryKeySpectrum(const Weights& w, int head, const Rotary& rotary, int delta, double rank_rtol) {
    const ThinFactors f = rotatedQueryKey(w, head, rotary, delta);
    return productSpectrum(f.A, f.B, rank_rtol);
}

PairSplit splitByRotaryPair(const Rotary& rotary, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& k, int delta) {
    const int d_k = static_cast<int>(q.size());
    if (k.size() != q.size()) throw std::invalid_argument("q and k have different sizes");
    const int m = pairsOf(rotary, d_k);
    PairSplit split;
    for (int p = 0; p < m; ++p) {
        RotaryPair pair;
        pair.frequency = rotary.inverse_frequencies(p);
        pair.angle = pair.frequency * delta;
        const double a_q = q(p), b_q = q(p + m), a_k = k(p), b_k = k(p + m);
        pair.contribution = (a_q * a_k + b_q * b_k) * std::cos(pair.angle) + (b_q * a_k - a_q * b_k) * std::sin(pair.angle);
        split.total += pair.contribution;
        split.pairs.push_back(pair);
    }
    split.unrotated = q.tail(d_k - 2 * m).dot(k.tail(d_k - 2 * m));
    split.total += split.unrotated;
    return split;
}

std::vector<double> pairShares(const Weights& w, int head, const Rotary& rotary) {
    if (head < 0 || head >= w.heads) throw std::out_of_range("no head " + std::to_string(head));
    const int d_k = w.d_k, m = pairsOf(rotary, d_k);
    const Eigen::MatrixXd Q = w.queryHead(head).cast<double>(), K = w.keyHead(head).cast<double>();  // (d, d_k)
    // ||A B^T||_F^2 = trace((A^T A)(B^T B)) for thin A, B: no (d, d) matrix formed.
    const auto norm2 = [](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
        return ((a.transpose() * a).cwiseProduct(b.transpose() * b)).sum();
    };
    std::vector<double> shares;
    double total = 0;
    for (int p = 0; p < m; ++p) {
        Eigen::MatrixXd a(Q.rows(), 2), b(K.rows(), 2);
        a << Q.col(p), Q.col(p + m);
        b << K.col(p), K.col(p + m);
        shares.push_back(norm2(a, b));
        total += shares.back();
    }
    const int rest = d_k - 2 * m;
    shares.push_back(rest > 0 ? norm2(Q.rightCols(rest), K.rightCols(rest)) : 0.0);
    total += shares.back();
    for (double& s : shares) s = total > 0 ? s / total : 0.0;
    return shares;
}

int cellDelta(const Rotary& rotary, int row, int col) {
    const auto position = [](const std::vector<int>& positions, int index) {
        return index >= 0 && index < static_cast<int>(positions.size()) ? positions[std::size_t(index)] : index;
    };
    return position(rotary.key_positions, col) - position(rotary.query_positions, row);
}

RotatedCircuits rotatedCircuits(const Weights& w, const Rotary& rotary, int head, int delta, double rank_rtol,
                                bool form_product) {
    if (head < 0 || head >= w.heads) throw std::out_of_range("no head " + std::to_string(head));
    RotatedCircuits c;
    c.delta = delta;
    c.head = head;
    c.qk.resize(std::size_t(w.heads));
    parallelFor(w.heads, [&](int i) { c.qk[std::size_t(i)] = rotatedQueryKeySpectrum(w, i, rotary, delta, rank_rtol); },
                w.heads > 1 && w.dModel() >= 256);
    if (form_product) {
        const ThinFactors f = rotatedQueryKey(w, head, rotary, delta);
        c.W_QK = (f.A * f.B.transpose()).cast<float>();  // (d_model, d_k) (d_k, d_model) -> (d_model, d_model)
    }
    return c;
}

LogitCurve logitAgainstDelta(const Rotary& rotary, const Eigen::Ref<const Eigen::VectorXf>& q,
                             const Eigen::Ref<const Eigen::VectorXf>& k, int query_position, int key_position,
                             double factor, int min_delta, int max_delta) {
    const int d_k = static_cast<int>(q.size());
    if (k.size() != q.size()) throw std::invalid_argument("q and k have different sizes");
    if (min_delta > max_delta) throw std::invalid_argument("the Delta range is empty");
    // Undo the rotation forward() applied: turning by -t restores the unrotated row. (1, d_k)
    Eigen::MatrixXf qt = q.transpose(), kt = k.transpose();
    rotateHeads(rotary, {-query_position}, d_k, qt);
    rotateHeads(rotary, {-key_position}, d_k, kt);
    const Eigen::VectorXd qd = qt.transpose().cast<double>(), kd = kt.transpose().cast<double>();
    LogitCurve curve;
    for (int delta = min_delta; delta <= max_delta; ++delta) {
        curve.deltas.push_back(delta);
        curve.logits.push_back(factor * splitByRotaryPair(rotary, qd, kd, delta).total);
    }
    return curve;
}

CellLogitCurve cellLogitCurve(const Analysis& a, int head, int row, int col) {
    const Weights& w = a.weights();
    if (!a.rotary.enabled()) throw std::invalid_argument("this layer has no rotary positions: its logits do not depend on Delta");
    if (head < 0 || head >= w.heads || head >= static_cast<int>(a.results.heads.size()))
        throw std::out_of_range("no head " + std::to_string(head));
    if (row < 0 || row >= a.nQuery() || col < 0 || col >= a.nKeyValue())
        throw std::out_of_range("no cell (" + std::to_string(row) + ", " + std::to_string(col) + ")");
    const int d_k = w.d_k, g = w.kvHeadOf(head);
    // The rotated q_i (head's columns of Q) and k_j (its key/value head's columns of K): (d_k)
    const Eigen::VectorXf q = a.results.Q.row(row).segment(Eigen::Index(head) * d_k, d_k).transpose();
    const Eigen::VectorXf k = a.results.K.row(col).segment(Eigen::Index(g) * d_k, d_k).transpose();
    const auto position = [](const std::vector<int>& positions, int index) {
        return index < static_cast<int>(positions.size()) ? positions[std::size_t(index)] : index;
    };
    const int t_q = position(a.rotary.query_positions, row), t_k = position(a.rotary.key_positions, col);
    CellLogitCurve c;
    c.head = head;
    c.row = row;
    c.col = col;
    c.cell_delta = t_k - t_q;
    int lo = c.cell_delta, hi = c.cell_delta;  // every key position minus every query position
    for (int i : {0, a.nQuery() - 1})
        for (int j : {0, a.nKeyValue() - 1}) {
            lo = std::min(lo, cellDelta(a.rotary, i, j));
            hi = std::max(hi, cellDelta(a.rotary, i, j));
        }
    const double factor = a.attentionOptions().logitFactor(d_k);
    c.curve = logitAgainstDelta(a.rotary, q, k, t_q, t_k, factor, lo, hi);
    c.engine_logit = a.logitAt(head, row, col);
    return c;
}

}  // namespace headscope
