#include "QueryKeyMap.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace headscope {

int mostAttendedKey(const Analysis& a, int head, int row) {
    const Eigen::MatrixXf& w = a.results.heads.at(std::size_t(head)).weights;  // (n_q, n_kv)
    int best = -1;
    for (int c = 0; c < w.cols(); ++c)
        if (a.results.allowed(row, c) && (best < 0 || w(row, c) > w(row, best))) best = c;
    return best;
}

QueryKeyMap queryKeyMap(const Analysis& a, int head) {
    if (head < 0 || head >= static_cast<int>(a.results.heads.size()))
        throw std::out_of_range("no head " + std::to_string(head));
    const Weights& w = a.weights();
    const int d_k = w.d_k, g = w.kvHeadOf(head);
    const int n_q = static_cast<int>(a.results.Q.rows()), n_kv = static_cast<int>(a.results.K.rows());
    const int n = n_q + n_kv;
    QueryKeyMap m;
    m.head = head;
    m.kv_head = g;
    m.d_k = d_k;
    m.factor = a.attentionOptions().logitFactor(d_k);
    m.query_tokens = a.input.query.tokens;
    m.key_tokens = a.input.key_value.tokens;
    m.most_attended.resize(std::size_t(n_q));
    for (int r = 0; r < n_q; ++r) m.most_attended[std::size_t(r)] = mostAttendedKey(a, head, r);

    // P (n, d_k): queries on top, keys below, each scaled by sqrt(scale / T); then centred.
    const double root = std::sqrt(m.factor);
    Eigen::MatrixXd P(n, d_k);
    P.topRows(n_q) = a.results.Q.middleCols(Eigen::Index(head) * d_k, d_k).cast<double>() * root;
    P.bottomRows(n_kv) = a.results.K.middleCols(Eigen::Index(g) * d_k, d_k).cast<double>() * root;
    const Eigen::RowVectorXd mean = P.colwise().mean();  // (d_k)
    P.rowwise() -= mean;

    Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(n, 2);  // (n, 2)
    double total = 0;
    Eigen::Vector2d top(0, 0);  // the two largest eigenvalues (S_k^2)
    if (n > 0 && d_k > 0) {
        if (d_k <= n) {
            // C = P_c^T P_c (d_k, d_k) = V S^2 V^T; coordinates P_c V
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(P.transpose() * P);
            const Eigen::VectorXd values = eig.eigenvalues().cwiseMax(0.0);  // ascending
            total = values.sum();
            for (int c = 0; c < 2 && c < d_k; ++c) {
                Eigen::VectorXd v = eig.eigenvectors().col(d_k - 1 - c);  // (d_k)
                Eigen::Index at;
                v.cwiseAbs().maxCoeff(&at);
                if (v(at) < 0) v = -v;
                coords.col(c) = P * v;
                top(c) = values(d_k - 1 - c);
            }
        } else {
            // G = P_c P_c^T (n, n) = U S^2 U^T; coordinates U S. The axis V = P_c^T U / S.
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(P * P.transpose());
            const Eigen::VectorXd values = eig.eigenvalues().cwiseMax(0.0);
            total = values.sum();
            for (int c = 0; c < 2 && c < n; ++c) {
                const double s2 = values(n - 1 - c);
                top(c) = s2;
                if (s2 <= 0) continue;
                Eigen::VectorXd v = P.transpose() * eig.eigenvectors().col(n - 1 - c) / std::sqrt(s2);  // (d_k)
                Eigen::Index at;
                v.cwiseAbs().maxCoeff(&at);
                if (v(at) < 0) v = -v;
                coords.col(c) = P * v;
            }
        }
    }
    // A rank-one (or zero) cloud has no second axis: its eigenvalue is rounding noise.
    if (total > 0) {
        m.explained = top / total;
        m.explained = m.explained.cwiseMax(0.0).cwiseMin(1.0);
        m.explained_total = std::min(1.0, m.explained.sum());
    }
    m.query_points = coords.topRows(n_q);
    m.key_points = coords.bottomRows(n_kv);
    return m;
}

}  // namespace headscope
