// Values-only symmetric eigensolver (tridiagonalisation + rational QL) against Eigen's
// SelfAdjointEigenSolver on random, semidefinite, graded, clustered and low-rank matrices.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <cmath>
#include <limits>

#include "Random.h"
#include "common/RandomMatrix.h"
#include "SymmetricEigenvalues.h"

using namespace headscope;

namespace {

// Q diag(values) Q^T with a random orthogonal Q.
Eigen::MatrixXd withEigenvalues(const Eigen::VectorXd& values, Rng& rng) {
    const Eigen::Index n = values.size();
    const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(test::randomNormalMatrix(int(n), int(n), rng)).householderQ();
    return q * values.asDiagonal() * q.transpose();
}

Eigen::VectorXd reference(const Eigen::MatrixXd& m) {
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m, Eigen::EigenvaluesOnly).eigenvalues();
}
}  // namespace

TEST(SymmetricEigenvalues, AgreeWithEigenOnManyKinds) {
    Rng rng(5);
    double worst = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int n = 1 + int(rng.next() % 90);
        Eigen::MatrixXd m;
        switch (trial % 5) {
            case 0: {  // symmetric, both signs
                const Eigen::MatrixXd a = test::randomNormalMatrix(n, n, rng);
                m = a + a.transpose();
                break;
            }
            case 1: {  // semidefinite of low rank: many exact zeros
                const Eigen::MatrixXd a = test::randomNormalMatrix(n, std::max(1, n / 3), rng);
                m = a * a.transpose();
                break;
            }
            case 2:  // graded over 30 decades
                m = withEigenvalues(Eigen::VectorXd::LinSpaced(n, 0, -30).unaryExpr([](double e) {
                    return std::pow(10.0, e);
                }), rng);
                break;
            case 3:  // clustered: three distinct values, repeated
                m = withEigenvalues(Eigen::VectorXd::LinSpaced(n, 0, 2).array().round(), rng);
                break;
            default:  // already diagonal, unsorted
                m = Eigen::MatrixXd(test::randomNormalMatrix(n, 1, rng).col(0).asDiagonal());
        }
        Eigen::VectorXd values;
        ASSERT_TRUE(symmetricEigenvalues(m, values)) << "trial " << trial;
        const Eigen::VectorXd expected = reference(m);
        ASSERT_EQ(values.size(), n);
        const double scale = std::max(1e-300, expected.cwiseAbs().maxCoeff());
        const double diff = (values - expected).cwiseAbs().maxCoeff() / scale;
        worst = std::max(worst, diff);
        // Backward stable: |error| <= about n eps ||m||.
        ASSERT_LT(diff, 4 * n * std::numeric_limits<double>::epsilon()) << "trial " << trial << " n " << n;
        for (int i = 1; i < n; ++i) ASSERT_LE(values(i - 1), values(i));
    }
    std::printf("worst |lambda - eigen| / |lambda|_max = %.3g over 400 matrices\n", worst);
}

TEST(SymmetricEigenvalues, ReadsTheLowerTriangleOnly) {
    Rng rng(6);
    const Eigen::MatrixXd a = test::randomNormalMatrix(12, 12, rng);
    const Eigen::MatrixXd m = a + a.transpose();
    Eigen::MatrixXd lower = m;
    lower.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);
    Eigen::VectorXd from_full, from_lower;
    ASSERT_TRUE(symmetricEigenvalues(m, from_full));
    ASSERT_TRUE(symmetricEigenvalues(lower, from_lower));
    EXPECT_EQ(from_full, from_lower);
}

TEST(SymmetricEigenvalues, TridiagonalsWithSplitsAndEdgeCases) {
    // A zero coupling splits the matrix into blocks; the values are those of each block.
    Eigen::VectorXd d(5), e(4);
    d << 4, 1, -2, 3, 3;
    e << 1, 0, 0.5, 0;
    Eigen::VectorXd values = d;
    ASSERT_TRUE(tridiagonalEigenvalues(values, e));
    Eigen::MatrixXd t = Eigen::MatrixXd(d.asDiagonal());
    for (int i = 0; i < 4; ++i) t(i + 1, i) = t(i, i + 1) = e(i);
    EXPECT_LT((values - reference(t)).cwiseAbs().maxCoeff(), 1e-14 * 4);

    Eigen::VectorXd one(1);
    one << -7;
    ASSERT_TRUE(tridiagonalEigenvalues(one, Eigen::VectorXd(0)));
    EXPECT_EQ(one(0), -7);

    Eigen::VectorXd none;
    EXPECT_TRUE(symmetricEigenvalues(Eigen::MatrixXd(0, 0), none));
    EXPECT_EQ(none.size(), 0);

    Eigen::VectorXd zeros;
    ASSERT_TRUE(symmetricEigenvalues(Eigen::MatrixXd::Zero(6, 6), zeros));
    EXPECT_EQ(zeros, Eigen::VectorXd::Zero(6));

    Eigen::MatrixXd bad = Eigen::MatrixXd::Identity(3, 3);
    bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd unused;
    EXPECT_FALSE(symmetricEigenvalues(bad, unused));
}

TEST(SymmetricEigenvalues, TwoTogetherGiveExactlyWhatEachGivesAlone) {
    // Interleaving two QL iterations must not change a bit of either: pairs of every size
    // from 0 to 70 (sweeps of different lengths and counts), with zero couplings that split
    // blocks, clusters and a NaN that fails one of the two.
    Rng rng(8);
    const auto tridiagonal = [&](int n, int kind, Eigen::VectorXd& d, Eigen::VectorXd& e) {
        d = test::randomNormalMatrix(n, 1, rng).col(0);
        e = test::randomNormalMatrix(std::max(n - 1, 0), 1, rng).col(0);
        if (kind == 1)
            for (Eigen::Index i = 0; i < e.size(); i += 5) e(i) = 0;  // split into blocks
        if (kind == 2) d = d.array().round();                          // clustered values
        if (kind == 3 && n > 2) d(n / 2) = std::numeric_limits<double>::quiet_NaN();
    };
    int pairs = 0;
    for (int trial = 0; trial < 300; ++trial) {
        Eigen::VectorXd d_a, e_a, d_b, e_b;
        tridiagonal(int(rng.next() % 71), trial % 4, d_a, e_a);
        tridiagonal(int(rng.next() % 71), (trial / 4) % 4, d_b, e_b);
        Eigen::VectorXd alone_a = d_a, alone_b = d_b, together_a = d_a, together_b = d_b;
        const bool ok_a = tridiagonalEigenvalues(alone_a, e_a), ok_b = tridiagonalEigenvalues(alone_b, e_b);
        const auto [together_ok_a, together_ok_b] = tridiagonalEigenvaluesTogether(together_a, e_a, together_b, e_b);
        ASSERT_EQ(together_ok_a, ok_a) << "trial " << trial;
        ASSERT_EQ(together_ok_b, ok_b) << "trial " << trial;
        if (ok_a) ASSERT_EQ(together_a, alone_a) << "trial " << trial;
        if (ok_b) ASSERT_EQ(together_b, alone_b) << "trial " << trial;
        pairs += ok_a && ok_b;
    }
    EXPECT_GT(pairs, 100);  // most pairs are finite on both sides

    // And through the Householder tridiagonalisation, including an empty and a non-finite matrix.
    const Eigen::MatrixXd a = test::randomNormalMatrix(40, 40, rng), b = test::randomNormalMatrix(23, 23, rng);
    Eigen::VectorXd alone_a, alone_b, together_a, together_b;
    ASSERT_TRUE(symmetricEigenvalues(a + a.transpose(), alone_a));
    ASSERT_TRUE(symmetricEigenvalues(b + b.transpose(), alone_b));
    const auto ok = symmetricEigenvaluesTogether(a + a.transpose(), together_a, b + b.transpose(), together_b);
    EXPECT_TRUE(ok[0] && ok[1]);
    EXPECT_EQ(together_a, alone_a);
    EXPECT_EQ(together_b, alone_b);
    Eigen::MatrixXd bad = Eigen::MatrixXd::Identity(3, 3);
    bad(2, 0) = std::numeric_limits<double>::infinity();
    const auto mixed = symmetricEigenvaluesTogether(bad, together_a, Eigen::MatrixXd(0, 0), together_b);
    EXPECT_FALSE(mixed[0]);
    EXPECT_TRUE(mixed[1]);
    EXPECT_EQ(together_b.size(), 0);
}
