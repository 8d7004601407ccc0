#include "lessons/Reparametrize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "Engine.h"
#include "Random.h"

namespace headscope::lessons {

Reparametrized reparametrizeQK(const Weights& weights, std::uint64_t seed) {
    // W_Q (d_model, h*d_k) -> head i's block times M_g; W_K (d_model, kv*d_k) -> block g times M_g^-T.
    Reparametrized out{weights, 0.0};
    const int d_k = weights.d_k;
    for (int g = 0; g < weights.kv_heads; ++g) {
        Rng rng(deriveSeed(seed, "M group " + std::to_string(g)));
        Eigen::MatrixXd gauss(d_k, d_k);
        for (int c = 0; c < d_k; ++c)
            for (int r = 0; r < d_k; ++r) gauss(r, c) = rng.normal();
        const Eigen::MatrixXd R = Eigen::HouseholderQR<Eigen::MatrixXd>(gauss).householderQ();
        Eigen::VectorXd s(d_k);
        for (int k = 0; k < d_k; ++k) s(k) = 0.5 + 1.5 * rng.uniform01();  // [0.5, 2)
        const Eigen::MatrixXd M = R * s.asDiagonal();                        // (d_k, d_k)
        const Eigen::MatrixXd M_inv_T = R * s.cwiseInverse().asDiagonal();  // (M^-1)^T = R diag(1/s)
        out.max_condition = std::max(out.max_condition, s.maxCoeff() / s.minCoeff());
        out.weights.W_K.middleCols(g * d_k, d_k) = (weights.W_K.middleCols(g * d_k, d_k).cast<double>() * M_inv_T).cast<float>();
        if (weights.hasBias())
            out.weights.b_K.segment(g * d_k, d_k) = (weights.b_K.segment(g * d_k, d_k).cast<double>() * M_inv_T).cast<float>();
        for (int i = 0; i < weights.heads; ++i) {
            if (weights.kvHeadOf(i) != g) continue;
            out.weights.W_Q.middleCols(i * d_k, d_k) = (weights.W_Q.middleCols(i * d_k, d_k).cast<double>() * M).cast<float>();
            if (weights.hasBias())
                out.weights.b_Q.segment(i * d_k, d_k) = (weights.b_Q.segment(i * d_k, d_k).cast<double>() * M).cast<float>();
        }
    }
    return out;
}

ReparametrizeCheck checkReparametrization(const Analysis& analysis, std::uint64_t seed) {
    ReparametrizeCheck check;
    const Reparametrized r = reparametrizeQK(analysis.weights(), seed);
    check.max_condition = r.max_condition;
    check.max_factor_change = (r.weights.W_Q - analysis.weights().W_Q).cwiseAbs().maxCoeff();
    const AttentionOptions options = AttentionOptions::from(analysis.config);
    const Results again = forward(options, r.weights, analysis.input.query.X, analysis.input.key_value.X);
    for (std::size_t h = 0; h < again.heads.size(); ++h) {
        const HeadResult& a = analysis.results.heads[h];
        const HeadResult& b = again.heads[h];
        for (Eigen::Index i = 0; i < a.weights.rows(); ++i)
            for (Eigen::Index j = 0; j < a.weights.cols(); ++j) {
                check.max_weight_diff = std::max(check.max_weight_diff, double(std::abs(a.weights(i, j) - b.weights(i, j))));
                if (std::isfinite(a.logits(i, j)) && std::isfinite(b.logits(i, j)))
                    check.max_logit_diff = std::max(check.max_logit_diff, double(std::abs(a.logits(i, j) - b.logits(i, j))));
                else if (std::isfinite(a.logits(i, j)) != std::isfinite(b.logits(i, j)))
                    check.max_logit_diff = INFINITY;
            }
    }
    return check;
}

Analysis reparametrizedAnalysis(const Analysis& analysis, std::uint64_t seed) {
    Analysis out = analysis;
    out.setWeights(reparametrizeQK(analysis.weights(), seed).weights);
    out.results = forward(AttentionOptions::from(analysis.config), out.weights(), analysis.input.query.X,
                          analysis.input.key_value.X);
    out.equivalence.reset();
    return out;
}

}  // namespace headscope::lessons
