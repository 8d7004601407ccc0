#include "Weights.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "Parallel.h"
#include "Random.h"

namespace headscope {

namespace {

// Row-major draw order, so the numbers do not depend on Eigen's storage order: kRows rows at a
// time are drawn into a row-major buffer (a block of words per call), then copied into the
// column-major matrix, half a cache line per column. 8 rows of BERT-base's 768 columns (24 KiB)
// stay in a 32 KiB L1 where 16 did not: makeWeights on one thread 3.6-4.0 -> 2.7-3.3 ms (AMD
// EPYC Zen 4; an x86-64-v3 build on the same cores 4.3-4.4 -> 4.0-4.2 ms), the same numbers.
template <typename Derived>
void fillUniform(Eigen::MatrixBase<Derived>& m, std::uint64_t seed, double bound) {
    constexpr Eigen::Index kRows = 8;
    Rng rng(seed);
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows(kRows, m.cols());  // (kRows, cols)
    for (Eigen::Index r0 = 0; r0 < m.rows(); r0 += kRows) {
        const Eigen::Index n = std::min(kRows, m.rows() - r0);
        rng.fillUniform(rows.data(), static_cast<std::size_t>(n * m.cols()), -bound, bound);
        m.middleRows(r0, n) = rows.topRows(n);
    }
}

template <typename Derived>
void fillNormal(Eigen::MatrixBase<Derived>& m, std::uint64_t seed, double sigma) {
    Rng rng(seed);
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = static_cast<float>(sigma * rng.normal());
}

std::string shapeOf(const Eigen::MatrixXf& m) {
    return "(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ")";
}

}  // namespace

long long Weights::parameterCount() const {
    long long n = W_Q.size() + W_K.size() + W_V.size() + W_O.size();
    return n + b_Q.size() + b_K.size() + b_V.size() + b_O.size();
}

std::string Weights::check() const {
    if (heads < 1 || kv_heads < 1 || heads % kv_heads != 0 || d_k < 1 || d_v < 1)
        return "the head counts (" + std::to_string(heads) + " query, " + std::to_string(kv_heads) +
               " key/value) and head sizes (d_k " + std::to_string(d_k) + ", d_v " + std::to_string(d_v) +
               ") do not fit together";
    const Eigen::Index d = W_Q.rows();
    auto expect = [](const Eigen::MatrixXf& m, Eigen::Index rows, Eigen::Index cols, const char* name) {
        return (m.rows() == rows && m.cols() == cols)
                   ? std::string()
                   : std::string(name) + " has shape " + shapeOf(m) + " but (" + std::to_string(rows) + ", " +
                         std::to_string(cols) + ") is needed";
    };
    for (const std::string& problem :
         {expect(W_Q, d, Eigen::Index(heads) * d_k, "W_Q"), expect(W_K, d, Eigen::Index(kv_heads) * d_k, "W_K"),
          expect(W_V, d, Eigen::Index(kv_heads) * d_v, "W_V"), expect(W_O, Eigen::Index(heads) * d_v, d, "W_O")})
        if (!problem.empty()) return problem;
    if (hasBias() && (b_Q.size() != W_Q.cols() || b_K.size() != W_K.cols() || b_V.size() != W_V.cols() ||
                      b_O.size() != d))
        return "the bias vectors do not match the weight matrices";
    const std::pair<const char*, const float*> arrays[] = {
        {"W_Q", W_Q.data()}, {"W_K", W_K.data()}, {"W_V", W_V.data()}, {"W_O", W_O.data()},
        {"b_Q", b_Q.data()}, {"b_K", b_K.data()}, {"b_V", b_V.data()}, {"b_O", b_O.data()}};
    const Eigen::Index sizes[] = {W_Q.size(), W_K.size(), W_V.size(), W_O.size(),
                                  b_Q.size(), b_K.size(), b_V.size(), b_O.size()};
    for (int a = 0; a < 8; ++a)
        for (Eigen::Index i = 0; i < sizes[a]; ++i)
            if (!std::isfinite(arrays[a].second[i]))
                return std::string(arrays[a].first) + " contains a non-finite value (NaN or infinity)";
    return {};
}

Weights makeWeights(const Config& config) {
    Weights w;
    w.heads = config.heads;
    w.kv_heads = config.kvHeads();
    w.d_k = config.headDimK();
    w.d_v = config.headDimV();
    const int d = config.d_model;
    const int q_cols = w.heads * w.d_k, k_cols = w.kv_heads * w.d_k, v_cols = w.kv_heads * w.d_v;
    const int o_rows = w.heads * w.d_v;

    w.W_Q.resize(d, q_cols);   // (d_model, h*d_k)
    w.W_K.resize(d, k_cols);   // (d_model, kv*d_k)
    w.W_V.resize(d, v_cols);   // (d_model, kv*d_v)
    w.W_O.resize(o_rows, d);   // (h*d_v, d_model)
    const std::uint64_t s = config.seed;

    if (config.init == InitKind::Identity) {
        // Square by validation: h*d_k = kv*d_k = kv*d_v = h*d_v = d_model.
        for (Eigen::MatrixXf* m : {&w.W_Q, &w.W_K, &w.W_V, &w.W_O}) m->setIdentity();
        if (config.bias) {
            w.b_Q = Eigen::RowVectorXf::Zero(q_cols);
            w.b_K = Eigen::RowVectorXf::Zero(k_cols);
            w.b_V = Eigen::RowVectorXf::Zero(v_cols);
            w.b_O = Eigen::RowVectorXf::Zero(d);
        }
        return w;
    }
    // Each matrix has its own stream, so the four fills can run in parallel.
    const bool xavier = config.init == InitKind::Xavier;
    // xavier_uniform over the stacked in-projection (q_cols + k_cols + v_cols, d_model);
    // W_O: nn.Linear's kaiming_uniform(a = sqrt 5), bound = 1 / sqrt(fan_in).
    const double in_bound = std::sqrt(6.0 / (double(d) + double(q_cols + k_cols + v_cols)));
    const double out_bound = 1.0 / std::sqrt(double(o_rows));
    const double sigma = config.init_sigma;
    Eigen::MatrixXf* matrices[] = {&w.W_Q, &w.W_K, &w.W_V, &w.W_O};
    const char* names[] = {"W_Q", "W_K", "W_V", "W_O"};
    parallelFor(4, [&](int m) {
        if (xavier)
            fillUniform(*matrices[m], deriveSeed(s, names[m]), m == 3 ? out_bound : in_bound);
        else
            fillNormal(*matrices[m], deriveSeed(s, names[m]), sigma);
    }, double(d) * (q_cols + o_rows) > 1e5);
    if (config.bias) {
        w.b_Q = Eigen::RowVectorXf::Zero(q_cols);
        w.b_K = Eigen::RowVectorXf::Zero(k_cols);
        w.b_V = Eigen::RowVectorXf::Zero(v_cols);
        w.b_O = Eigen::RowVectorXf::Zero(d);
        if (!xavier) {  // PyTorch zeroes the biases; the normal initialiser draws them too
            fillNormal(w.b_Q, deriveSeed(s, "b_Q"), sigma);
            fillNormal(w.b_K, deriveSeed(s, "b_K"), sigma);
            fillNormal(w.b_V, deriveSeed(s, "b_V"), sigma);
            fillNormal(w.b_O, deriveSeed(s, "b_O"), sigma);
        }
    }
    return w;
}

}  // namespace headscope
