// Spectra of W_QK = W_Q W_K^T and W_OV = W_V W_O from thin factors, and numerical rank.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <limits>

#include "Analysis.h"
#include "Random.h"
#include "common/RandomMatrix.h"
#include "common/ReferenceSvd.h"
#include "Spectrum.h"

using namespace headscope;

namespace {
Eigen::MatrixXd randomMatrix(int rows, int cols, std::uint64_t seed) {
    Rng rng(seed);
    return test::randomNormalMatrix(rows, cols, rng);
}
}  // namespace

TEST(Spectrum, ThinFactorsMatchTheFullSvdOfTheProduct) {
    const Eigen::MatrixXd a = randomMatrix(50, 6, 1), b = randomMatrix(40, 6, 2);
    const Spectrum fast = productSpectrum(a, b);
    const Eigen::VectorXd full = test::referenceSingularValues(a * b.transpose());
    ASSERT_EQ(fast.singular_values.size(), 6);
    const double diff = (fast.singular_values - full.head(6)).cwiseAbs().maxCoeff();
    std::printf("max |sv_thin - sv_full| = %.3g (sigma_max %.3g)\n", diff, full(0));
    EXPECT_LT(diff, 1e-12 * full(0));
    EXPECT_EQ(fast.rank, 6);
}

TEST(Spectrum, ConstructedLowRankFactorsGiveTheConstructedRank) {
    // A = U C with U (64, 3): rank(A B^T) = 3 although d_k = 10.
    const Eigen::MatrixXd a = randomMatrix(64, 3, 3) * randomMatrix(3, 10, 4);
    const Eigen::MatrixXd b = randomMatrix(64, 10, 5);
    const Spectrum s = productSpectrum(a, b);
    EXPECT_EQ(s.rank, 3);
    EXPECT_EQ(naiveProductSpectrum(a, b).rank, 3);
    EXPECT_LT(s.singular_values(3), 1e-12 * s.singular_values(0));
}

TEST(Spectrum, HeadsMixingRankDeficientAndFullRankProductsMatchTheNaiveSvd) {
    // Head 1's W_Q block has rank 5, exactly in float: its W_QK falls back to Householder QR
    // and an SVD, while its W_OV and every other head take the Cholesky and eigenvalue path.
    // Each product's spectrum and rank must be its own, with a key-value group per head or
    // shared groups.
    for (int kv_heads : {2, 4}) {
        Config c;
        c.d_model = 96;
        c.heads = 4;
        c.kv_heads = kv_heads;
        Weights w = makeWeights(c);
        for (int j = 5; j < w.d_k; ++j)  // exact copies of its first 5 columns
            w.W_Q.col(w.d_k + j) = w.W_Q.col(w.d_k + j % 5);
        const auto fast = headSpectra(w);
        const auto naive = naiveHeadSpectra(w);
        for (int i = 0; i < c.heads; ++i) {
            EXPECT_EQ(fast[i].qk.rank, i == 1 ? 5 : w.d_k) << "head " << i;
            EXPECT_EQ(fast[i].qk.rank, naive[i].qk.rank) << "head " << i;
            EXPECT_EQ(fast[i].ov.rank, naive[i].ov.rank) << "head " << i;
            const double qk = naive[i].qk.singular_values(0), ov = naive[i].ov.singular_values(0);
            EXPECT_LT((fast[i].qk.singular_values - naive[i].qk.singular_values).cwiseAbs().maxCoeff(), 1e-10 * qk);
            EXPECT_LT((fast[i].ov.singular_values - naive[i].ov.singular_values).cwiseAbs().maxCoeff(), 1e-10 * ov);
        }
    }
}

TEST(Spectrum, RankIsBoundedByTheSmallerSide) {
    // d_k 16 > d_model 8: W_QK is 8 x 8, rank 8.
    Config c;
    c.d_model = 8;
    c.heads = 2;
    c.d_k = c.d_v = 16;
    const auto spectra = headSpectra(makeWeights(c));
    for (const auto& s : spectra) {
        EXPECT_EQ(s.qk.rank, 8);
        EXPECT_EQ(s.ov.rank, 8);
    }
}

TEST(Spectrum, RandomWeightsHaveFullRankDk) {
    // Grouped keys and values (3 groups) take headSpectra's shared-factor path, one group
    // per head (6) its per-product one.
    for (int kv_heads : {3, 6})
    for (InitKind init : {InitKind::Xavier, InitKind::Normal}) {
        Config c;
        c.d_model = 96;
        c.heads = 6;
        c.kv_heads = kv_heads;
        c.init = init;
        const Weights w = makeWeights(c);
        const auto fast = headSpectra(w);
        const auto naive = naiveHeadSpectra(w);
        for (int i = 0; i < c.heads; ++i) {
            EXPECT_EQ(fast[i].qk.rank, 16);
            EXPECT_EQ(fast[i].ov.rank, 16);
            EXPECT_EQ(naive[i].qk.rank, 16);
            const double scale = naive[i].qk.singular_values(0);
            EXPECT_LT((fast[i].qk.singular_values - naive[i].qk.singular_values).cwiseAbs().maxCoeff(), 1e-10 * scale);
            EXPECT_LT((fast[i].ov.singular_values - naive[i].ov.singular_values).cwiseAbs().maxCoeff(),
                      1e-10 * naive[i].ov.singular_values(0));
        }
    }
}

TEST(Spectrum, NumericalRankUsesNumpysDefaultTolerance) {
    Eigen::VectorXd sv(3);
    sv << 1.0, 1e-14, 1e-16;
    const double eps = std::numeric_limits<double>::epsilon();
    double tol = 0;
    EXPECT_EQ(numericalRank(sv, 100, 100, 0, &tol), 1);  // tol = 100 eps = 2.2e-14
    EXPECT_DOUBLE_EQ(tol, 100 * eps);
    EXPECT_EQ(numericalRank(sv, 10, 10, 0), 2);           // tol = 10 eps = 2.2e-15
    EXPECT_EQ(numericalRank(sv, 10, 10, 1e-13), 1);       // user tolerance relative to sigma_max
    EXPECT_EQ(numericalRank(Eigen::VectorXd::Zero(3), 5, 5, 0), 0);
}

TEST(Spectrum, LogitsRankIsAtMostTheTokenCount) {
    Config c;
    c.d_model = 64;
    c.heads = 2;  // d_k 32
    c.text = "three tiny tokens";
    const Analysis a = analyze(c, false);
    for (const Spectrum& s : a.logits) EXPECT_EQ(s.rank, 3);
    c.text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
             "seventeen eighteen nineteen twenty twentyone twentytwo twentythree twentyfour twentyfive twentysix "
             "twentyseven twentyeight twentynine thirty thirtyone thirtytwo thirtythree thirtyfour thirtyfive";
    c.heads = 8;  // d_k 8 < 35 tokens
    const Analysis b = analyze(c, false);
    for (const Spectrum& s : b.logits) EXPECT_EQ(s.rank, 8);
}

namespace {
double exactConditionOfTriangular(const Eigen::MatrixXd& r) {
    const Eigen::MatrixXd inverse = r.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(r.rows(), r.cols()));
    return r.cwiseAbs().colwise().sum().maxCoeff() * inverse.cwiseAbs().colwise().sum().maxCoeff();
}
}  // namespace

// The Cholesky fast path is taken only when this bound says the condition number is small, so
// it must never be below the true value.
TEST(Spectrum, TriangularConditionBoundIsNeverBelowTheTrueConditionNumber) {
    for (int trial = 0; trial < 60; ++trial) {
        const int n = 1 + trial % 40;
        Eigen::MatrixXd r = randomMatrix(n, n, 900 + trial).triangularView<Eigen::Upper>();
        // Diagonals from dominant to tiny, of either sign: condition numbers from ~1 to ~1e12.
        const double dominance = std::pow(10.0, (trial % 7) - 2);
        for (int j = 0; j < n; ++j) r(j, j) = (j % 2 ? -1 : 1) * (dominance + std::pow(0.6, trial % 50) * std::abs(r(j, j)));
        const double exact = exactConditionOfTriangular(r), bound = triangularConditionBound(r);
        EXPECT_GE(bound, exact * (1 - 1e-12)) << "n " << n << " trial " << trial;
    }
    const Eigen::MatrixXd diagonal = Eigen::VectorXd::LinSpaced(8, -4.0, 3.5).asDiagonal();
    EXPECT_NEAR(triangularConditionBound(diagonal), exactConditionOfTriangular(diagonal), 1e-12);
    Eigen::MatrixXd singular = Eigen::MatrixXd::Identity(3, 3);
    singular(1, 1) = 0;
    EXPECT_FALSE(std::isfinite(triangularConditionBound(singular)));
    // Tight enough to spare the inverse at BERT-base: the R of a random (768, 64) factor.
    const Eigen::MatrixXd a = randomMatrix(768, 64, 7);
    const Eigen::MatrixXd r = Eigen::HouseholderQR<Eigen::MatrixXd>(a).matrixQR().topRows(64).triangularView<Eigen::Upper>();
    EXPECT_LT(triangularConditionBound(r), 3 * exactConditionOfTriangular(r));
    EXPECT_LT(triangularConditionBound(r), 100.0);
}

TEST(Spectrum, IllConditionedFactorsStayWithinTheirErrorBound) {
    // A = B = U D Q with U (64, 8) orthonormal and Q (8, 8) orthogonal: A B^T = U D^2 U^T, so
    // the singular values are exactly D^2, here spread over a condition number of 50 * 50
    // (each factor's R, of condition 50, stays on the Cholesky-QR path or near it).
    const Eigen::MatrixXd u = Eigen::HouseholderQR<Eigen::MatrixXd>(randomMatrix(64, 8, 18)).householderQ() *
                              Eigen::MatrixXd::Identity(64, 8);
    const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(randomMatrix(8, 8, 19)).householderQ();
    const Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(8, 0, -std::log10(50.0)).unaryExpr([](double e) {
        return std::pow(10.0, e);
    });  // 1 ... 1/50, descending
    const Eigen::MatrixXd a = u * d.asDiagonal() * q;
    const Eigen::VectorXd exact = d.array().square();
    const Spectrum s = productSpectrum(a, a);
    ASSERT_EQ(s.singular_values.size(), 8);
    const double diff = (s.singular_values - exact).cwiseAbs().maxCoeff();
    std::printf("cond %.0f: max |sv - exact| = %.3g sigma_max\n", exact(0) / exact(7), diff / exact(0));
    EXPECT_LT(diff, 1e-12 * exact(0));
    EXPECT_EQ(s.rank, 8);
}

TEST(Spectrum, BertBaseHeadsMatchTheNaiveSvdClosely) {
    Config c;
    c.d_model = 768;
    c.heads = 12;
    const Weights w = makeWeights(c);
    const auto fast = headSpectra(w);
    const auto naive = naiveHeadSpectra(w, 0, 2);
    for (int i = 0; i < 2; ++i) {
        const double qk = (fast[i].qk.singular_values - naive[i].qk.singular_values).cwiseAbs().maxCoeff();
        const double ov = (fast[i].ov.singular_values - naive[i].ov.singular_values).cwiseAbs().maxCoeff();
        std::printf("head %d: |qk - naive| %.3g, |ov - naive| %.3g sigma_max\n", i,
                    qk / naive[i].qk.singular_values(0), ov / naive[i].ov.singular_values(0));
        EXPECT_LT(qk, 1e-13 * naive[i].qk.singular_values(0));
        EXPECT_LT(ov, 1e-13 * naive[i].ov.singular_values(0));
        EXPECT_EQ(fast[i].qk.rank, 64);
        EXPECT_EQ(fast[i].ov.rank, 64);
    }
}

TEST(Spectrum, EmptyFactorsHaveNoSingularValues) {
    // Logits of no tokens: Q (0, d_k) K^T. Nothing to compute, rank 0, every value an exact zero.
    const Eigen::MatrixXd none(0, 8), some = randomMatrix(5, 8, 30);
    for (const Spectrum& s : {productSpectrum(none, some), productSpectrum(some, none), productSpectrum(none, none),
                              naiveProductSpectrum(none, some)}) {
        EXPECT_EQ(s.singular_values.size(), 0);
        EXPECT_EQ(s.rank, 0);
    }
    EXPECT_EQ(zeroCount(productSpectrum(none, some), 0, 5), 0);
}

TEST(Spectrum, ValuesPastTheFactorWidthAreExactZerosAndCounted) {
    // d_model 96, 6 heads of d_k 16: W_QK (96, 96) has 16 computed values and 80 exact zeros;
    // a head whose W_Q block has rank 5 has 91 values at or below the tolerance.
    Config c;
    c.d_model = 96;
    c.heads = 6;
    Weights w = makeWeights(c);
    for (int j = 5; j < w.d_k; ++j) w.W_Q.col(w.d_k + j) = w.W_Q.col(w.d_k + j % 5);
    const auto spectra = headSpectra(w);
    for (int i = 0; i < c.heads; ++i) {
        const Eigen::VectorXd all = allSingularValues(spectra[i].qk, 96, 96);
        ASSERT_EQ(all.size(), 96);
        EXPECT_TRUE(all.tail(80).isZero(0)) << "head " << i;
        if (i != 1) { EXPECT_GT(all(15), spectra[i].qk.tolerance) << "head " << i; }
        EXPECT_EQ(zeroCount(spectra[i].qk, 96, 96), i == 1 ? 91 : 80) << "head " << i;
        EXPECT_EQ(zeroCount(spectra[i].ov, 96, 96), 80) << "head " << i;
    }
}
