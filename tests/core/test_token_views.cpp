// The numbers behind the per-token views: how one score is made (score breakdown) and where a
// head's queries and keys sit (joint query-key map). Each test pins a number that could be
// wrong: the breakdown's sum times the scale against the engine's logit, the merged bilinear
// form against it, the marked weight, masked cells refused with their reason, the map's
// coordinates against an independent PCA, and the explained variance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "Analysis.h"
#include "Circuits.h"
#include "Engine.h"
#include "QueryKeyMap.h"
#include "ScoreBreakdown.h"
#include "common/ReferenceSvd.h"

using namespace headscope;

namespace {

// Biases drawn (Normal init), grouped-query attention, scale on, T != 1: every term non-zero.
Config withBiases() {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.kv_heads = 2;
    c.init = InitKind::Normal;
    c.init_sigma = 0.3;
    c.temperature = 0.7;
    c.seed = 11;
    return c;
}

// |logit| scale of a head's unmasked cells, for relative tolerances.
double maxAbsLogit(const Analysis& a, int head) {
    double m = 0;
    const Eigen::MatrixXf& l = a.results.heads[head].logits;
    for (int r = 0; r < l.rows(); ++r)
        for (int c = 0; c < l.cols(); ++c)
            if (a.results.allowed(r, c)) m = std::max(m, double(std::abs(l(r, c))));
    return m;
}

}  // namespace

// Tolerance: the engine sums d_k float products in a float GEMM; the breakdown sums the same
// float products in double. Their difference is float rounding of a d_k-term sum:
// |diff| <= 1e-5 * max(1, max |logit|) for d_k = 8 (measured about 1e-7, printed).
TEST(ScoreBreakdown, SumTimesScaleIsTheEnginesLogitForEveryCell) {
    for (const Config& c : {Config{}, withBiases()}) {
        const Analysis a = analyze(c, false);
        double worst = 0;
        for (int h = 0; h < c.heads; ++h) {
            const double tol = 1e-5 * std::max(1.0, maxAbsLogit(a, h));
            for (int r = 0; r < a.nQuery(); ++r)
                for (int k = 0; k < a.nKeyValue(); ++k) {
                    const ScoreBreakdown b = scoreBreakdown(a, h, r, k);
                    ASSERT_FALSE(b.masked);
                    ASSERT_EQ(b.q.size(), a.weights().d_k);
                    // The bars are the engine's own Q and K rows, bitwise.
                    const int g = a.weights().kvHeadOf(h), d_k = a.weights().d_k;
                    EXPECT_EQ(b.q, a.results.Q.row(r).segment(h * d_k, d_k).transpose());
                    EXPECT_EQ(b.k, a.results.K.row(k).segment(g * d_k, d_k).transpose());
                    EXPECT_EQ(b.product, b.q.cwiseProduct(b.k));
                    EXPECT_DOUBLE_EQ(b.scale, 1.0 / std::sqrt(double(d_k)));
                    EXPECT_DOUBLE_EQ(b.temperature, c.temperature);
                    const double engine = a.results.heads[h].logits(r, k);
                    EXPECT_EQ(b.engine_logit, engine);
                    EXPECT_NEAR(b.dot * b.scale / b.temperature, engine, tol);
                    EXPECT_NEAR(b.logit, engine, tol);
                    worst = std::max(worst, std::abs(b.logit - engine));
                }
        }
        std::printf("[ breakdown ] max |dot * scale / T - engine logit| = %.3g\n", worst);
    }
}

// Tolerance: x_i W_QK x_j^T runs through a formed d_model x d_model float matrix, a different
// float summation order from (x_i W_Q + b)(x_j W_K + b)^T; the engine's own check
// (checkEquivalence) sees the same size of difference: |diff| <= 1e-4 * max(1, max |logit|).
TEST(ScoreBreakdown, BilinearFormAgreesWithinFloatTolerance) {
    const Config c = withBiases();
    const Analysis a = analyze(c, false);
    ASSERT_GT(a.weights().b_Q.cwiseAbs().maxCoeff(), 0.0f) << "the bias terms must be exercised";
    double worst = 0, worst_bias_terms = 0;
    for (int h = 0; h < c.heads; ++h) {
        const Eigen::MatrixXf w_qk = mergedQK(a.weights(), h);
        const double tol = 1e-4 * std::max(1.0, maxAbsLogit(a, h));
        for (int r = 0; r < a.nQuery(); ++r)
            for (int k = 0; k < a.nKeyValue(); ++k) {
                const ScoreBreakdown b = scoreBreakdown(a, h, r, k, &w_qk);
                ASSERT_TRUE(b.bilinear.has_value());
                const BilinearScore& s = *b.bilinear;
                EXPECT_NEAR(s.logit, a.results.heads[h].logits(r, k), tol);
                EXPECT_DOUBLE_EQ(s.difference, s.logit - b.logit);
                EXPECT_DOUBLE_EQ(s.sum, s.main + s.query_bias + s.key_bias + s.bias_bias);
                worst = std::max(worst, std::abs(s.difference));
                worst_bias_terms = std::max(worst_bias_terms, std::abs(s.query_bias) + std::abs(s.key_bias));
            }
    }
    std::printf("[ bilinear ] max |x W_QK x^T + bias terms, scaled - q.k scaled| = %.3g\n", worst);
    EXPECT_GT(worst_bias_terms, 1e-3) << "bias terms were all zero";
    // Without W_QK the bilinear form is left out, not guessed.
    EXPECT_FALSE(scoreBreakdown(a, 0, 0, 0).bilinear.has_value());
}

TEST(ScoreBreakdown, MarkedWeightAndSoftmaxRowAreTheEngines) {
    const Analysis a = analyze(withBiases(), false);
    for (int h = 0; h < 4; ++h)
        for (int r = 0; r < a.nQuery(); ++r) {
            const ScoreBreakdown b = scoreBreakdown(a, h, r, r);
            EXPECT_EQ(b.weight, double(a.results.heads[h].weights(r, r)));
            EXPECT_EQ(b.softmax_row, a.results.heads[h].weights.row(r).transpose());
        }
}

TEST(ScoreBreakdown, MaskedCellsAreRefusedWithTheReason) {
    Config c;
    c.mask = MaskKind::Causal;
    c.padded_keys = {0};
    const Analysis a = analyze(c, false);
    const ScoreBreakdown causal = scoreBreakdown(a, 2, 1, 3);
    EXPECT_TRUE(causal.masked);
    EXPECT_EQ(causal.reason, "key 3 is after query 1 (causal mask)");
    EXPECT_EQ(causal.q.size(), 0) << "no numbers for a masked cell";
    EXPECT_EQ(causal.product.size(), 0);
    EXPECT_EQ(causal.weight, 0.0);
    const ScoreBreakdown padded = scoreBreakdown(a, 0, 5, 0);
    EXPECT_TRUE(padded.masked);
    EXPECT_EQ(padded.reason, "key 0 is padded");
    EXPECT_FALSE(scoreBreakdown(a, 0, 5, 2).masked);
    EXPECT_EQ(maskReason(a, 5, 2), "");
    EXPECT_THROW(scoreBreakdown(a, 8, 0, 0), std::out_of_range);
    EXPECT_THROW(scoreBreakdown(a, 0, a.nQuery(), 0), std::out_of_range);
}

TEST(ScoreBreakdown, DefaultCellIsTheLastQueryAndItsMostAttendedKey) {
    Config c;
    c.mask = MaskKind::Causal;
    const Analysis a = analyze(c, false);
    const auto [row, col] = defaultCell(a, 3);
    EXPECT_EQ(row, a.nQuery() - 1);
    const Eigen::MatrixXf& w = a.results.heads[3].weights;
    Eigen::Index best;
    w.row(row).maxCoeff(&best);
    EXPECT_EQ(col, int(best));
}

namespace {

// An independent PCA: thin SVD of the centred, scaled stack (double).
struct Pca {
    Eigen::MatrixXd coords;  // (n, 2)
    Eigen::Vector2d share;
};
Pca independentPca(const Analysis& a, int head) {
    const int d_k = a.weights().d_k, g = a.weights().kvHeadOf(head);
    const double f = std::sqrt(double(AttentionOptions::from(a.config).logitFactor(d_k)));
    const Eigen::MatrixXd q = a.results.Q.middleCols(head * d_k, d_k).cast<double>() * f;
    const Eigen::MatrixXd k = a.results.K.middleCols(g * d_k, d_k).cast<double>() * f;
    Eigen::MatrixXd p(q.rows() + k.rows(), d_k);
    p << q, k;
    p.rowwise() -= p.colwise().mean();
    const test::ReferenceSvd svd = test::referenceSvd(p);
    Pca out;
    out.coords = p * svd.v.leftCols(2);
    const Eigen::VectorXd s2 = svd.singular_values.array().square();
    out.share = s2.head(2) / s2.sum();
    return out;
}

// Largest difference between a and b, each column compared up to its sign.
double upToSign(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    double worst = 0;
    for (int c = 0; c < a.cols(); ++c)
        worst = std::max(worst, std::min((a.col(c) - b.col(c)).cwiseAbs().maxCoeff(),
                                         (a.col(c) + b.col(c)).cwiseAbs().maxCoeff()));
    return worst;
}

}  // namespace

// Tolerance: both are double computations from the same float Q and K; they differ by the
// eigen-solver's rounding: 1e-9 * max |coordinate|.
TEST(QueryKeyMap, CoordinatesEqualAnIndependentPcaUpToSign) {
    Config cross = withBiases();
    cross.source_text = "Die Katze schlief auf der warmen Matte";
    Config many;  // 80 points in d_k = 16: the d_k x d_k branch of the solver
    many.d_model = 16;
    many.heads = 1;
    many.text = "";
    many.seq_len = 40;
    Config few;  // 6 points in d_k = 64: the n x n (Gram) branch
    few.d_model = 64;
    few.heads = 1;
    few.text = "one two three";
    for (const Config& c : {Config{}, withBiases(), cross, many, few}) {
        const Analysis a = analyze(c, false);
        for (int h = 0; h < c.heads; ++h) {
            const QueryKeyMap m = queryKeyMap(a, h);
            ASSERT_EQ(m.query_points.rows(), a.nQuery());
            ASSERT_EQ(m.key_points.rows(), a.nKeyValue());
            Eigen::MatrixXd ours(a.nQuery() + a.nKeyValue(), 2);
            ours << m.query_points, m.key_points;
            const Pca ref = independentPca(a, h);
            const double scale = std::max(1.0, ref.coords.cwiseAbs().maxCoeff());
            const double diff = upToSign(ours, ref.coords);
            EXPECT_LT(diff, 1e-9 * scale) << "head " << h;
            EXPECT_NEAR(m.explained(0), ref.share(0), 1e-9);
            EXPECT_NEAR(m.explained(1), ref.share(1), 1e-9);
            EXPECT_GE(m.explained_total, 0.0);
            EXPECT_LE(m.explained_total, 1.0);
            EXPECT_GE(m.explained(0), m.explained(1));
            if (h == 0) std::printf("[ qk map ] d_k %d, %d points: max |coord - reference| = %.3g, explained %.3f\n",
                                    m.d_k, int(ours.rows()), diff, m.explained_total);
        }
    }
}

TEST(QueryKeyMap, ScaledVectorsGiveTheLogitAndLinesGoToTheMostAttendedKey) {
    Config c = withBiases();
    c.mask = MaskKind::Causal;
    const Analysis a = analyze(c, false);
    const QueryKeyMap m = queryKeyMap(a, 1);
    EXPECT_FLOAT_EQ(float(m.factor), AttentionOptions::from(c).logitFactor(a.weights().d_k));
    ASSERT_EQ(int(m.most_attended.size()), a.nQuery());
    for (int r = 0; r < a.nQuery(); ++r) {
        Eigen::Index best;
        a.results.heads[1].weights.row(r).maxCoeff(&best);
        EXPECT_EQ(m.most_attended[r], int(best));
        EXPECT_LE(m.most_attended[r], r) << "causal: never a later key";
    }
    EXPECT_EQ(m.query_tokens, a.input.query.tokens);
    EXPECT_THROW(queryKeyMap(a, 4), std::out_of_range);
}
