// Eigenvalues of symmetric and tridiagonal matrices by the root-free QL iteration
// (core/SymmetricEigenvalues.h): closed forms, Eigen's SelfAdjointEigenSolver, exact scaling.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <numbers>

#include "Random.h"
#include "SymmetricEigenvalues.h"
#include "common/RandomMatrix.h"

using namespace headscope;

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();

// S (n, n) symmetric: A A^T (positive semi-definite, as the spectra's C C^T), A + A^T
// (indefinite), or A A^T graded by 10^(-i / 5) on row and column i (entries over 12 decades
// at n = 64).
enum class Kind { kGram, kIndefinite, kGraded };
Eigen::MatrixXd symmetricMatrix(int n, Kind kind, std::uint64_t seed) {
    Rng rng(seed);
    const Eigen::MatrixXd a = test::randomNormalMatrix(n, n, rng);
    if (kind == Kind::kIndefinite) return a + a.transpose();
    Eigen::MatrixXd s = a * a.transpose();
    if (kind == Kind::kGraded) {
        const Eigen::VectorXd grade = Eigen::VectorXd::LinSpaced(n, 0, -0.2 * (n - 1)).unaryExpr(
            [](double x) { return std::pow(10.0, x); });
        s = grade.asDiagonal() * s * grade.asDiagonal();
    }
    return s;
}
}  // namespace

TEST(SymmetricEigenvalues, SecondDifferenceMatrixMatchesItsClosedForm) {
    // tridiag(-1, 2, -1) (n, n): lambda_k = 2 - 2 cos(k pi / (n + 1)), k = 1..n. ||T||_2 < 4.
    for (int n : {1, 2, 3, 10, 64, 257}) {
        const auto lambda = tridiagonalEigenvalues(Eigen::VectorXd::Constant(n, 2.0),
                                                   Eigen::VectorXd::Constant(n - 1, -1.0));
        ASSERT_TRUE(lambda.has_value()) << "n " << n;
        ASSERT_EQ(lambda->size(), n);
        double worst = 0;
        for (int k = 1; k <= n; ++k)
            worst = std::max(worst, std::abs((*lambda)(k - 1) - (2 - 2 * std::cos(k * std::numbers::pi / (n + 1)))));
        EXPECT_LE(worst, 32 * kEps * 4) << "n " << n;
    }
}

TEST(SymmetricEigenvalues, MatchEigensSolverOnRandomMatrices) {
    // Both methods are backward stable: each eigenvalue within a small multiple of
    // eps ||S|| of the exact one (measured worst: ~3e-15 ||S||_max at n = 100).
    for (Kind kind : {Kind::kGram, Kind::kIndefinite, Kind::kGraded}) {
        for (int n : {1, 2, 3, 4, 7, 16, 64, 100}) {
            const Eigen::MatrixXd s = symmetricMatrix(n, kind, 100 * n + int(kind));
            const auto lambda = symmetricEigenvalues(s);
            ASSERT_TRUE(lambda.has_value()) << "n " << n;
            const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(s, Eigen::EigenvaluesOnly);
            const double scale = s.cwiseAbs().maxCoeff();
            EXPECT_LE((*lambda - eigen.eigenvalues()).cwiseAbs().maxCoeff(), 8 * n * kEps * scale)
                << "n " << n << " kind " << int(kind);
        }
    }
}

TEST(SymmetricEigenvalues, WilkinsonsCloseLargestPairIsResolved) {
    // W21+: diagonal |10 - i|, off-diagonal 1. Its two largest eigenvalues agree to 13 digits
    // (10.74619418290339 and 10.74619418290332); an iteration that merged them would fail here.
    Eigen::VectorXd d(21);
    for (int i = 0; i < 21; ++i) d(i) = std::abs(10.0 - i);
    const Eigen::VectorXd e = Eigen::VectorXd::Ones(20);
    const auto lambda = tridiagonalEigenvalues(d, e);
    ASSERT_TRUE(lambda.has_value());
    Eigen::MatrixXd t = d.asDiagonal();
    t.diagonal<1>() = e;
    t.diagonal<-1>() = e;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(t, Eigen::EigenvaluesOnly);
    EXPECT_LE((*lambda - eigen.eigenvalues()).cwiseAbs().maxCoeff(), 16 * kEps * 11);
    EXPECT_NEAR((*lambda)(20), 10.746194182903, 1e-11);
    EXPECT_NEAR((*lambda)(19), 10.746194182903, 1e-11);
    const double gap = eigen.eigenvalues()(20) - eigen.eigenvalues()(19);  // 7.1e-14
    EXPECT_NEAR((*lambda)(20) - (*lambda)(19), gap, 0.1 * gap);
}

TEST(SymmetricEigenvalues, DiagonalAndSplitMatricesGiveTheirBlocksEigenvalues) {
    // No off-diagonal: the diagonal itself, sorted, bit for bit.
    const Eigen::VectorXd d = (Eigen::VectorXd(5) << 3.5, -1.25, 0.0, 7.0, -1.25).finished();
    const auto diagonal = tridiagonalEigenvalues(d, Eigen::VectorXd::Zero(4));
    ASSERT_TRUE(diagonal.has_value());
    EXPECT_EQ(*diagonal, (Eigen::VectorXd(5) << -1.25, -1.25, 0.0, 3.5, 7.0).finished());
    // Two 2 x 2 blocks [[1, 1], [1, 1]] (eigenvalues 0, 2) and [[3, 0.5], [0.5, 3]] (2.5, 3.5)
    // split by a zero, and a lone 9.
    const auto split = tridiagonalEigenvalues((Eigen::VectorXd(5) << 1, 1, 3, 3, 9).finished(),
                                              (Eigen::VectorXd(4) << 1, 0, 0.5, 0).finished());
    ASSERT_TRUE(split.has_value());
    const Eigen::VectorXd expected = (Eigen::VectorXd(5) << 0, 2, 2.5, 3.5, 9).finished();
    EXPECT_LE((*split - expected).cwiseAbs().maxCoeff(), 4 * kEps * 9);
}

TEST(SymmetricEigenvalues, ScalingByPowersOfTwoIsExactFarFromOne) {
    // The squares e_i^2 of entries near 2^900 overflow and of entries near 2^-900 underflow;
    // the block is scaled by a power of two first, so the eigenvalues scale exactly.
    const Eigen::MatrixXd s = symmetricMatrix(12, Kind::kIndefinite, 7);
    const Eigen::Tridiagonalization<Eigen::MatrixXd> t(s);
    const Eigen::VectorXd d = t.diagonal(), e = t.subDiagonal();
    const auto lambda = tridiagonalEigenvalues(d, e);
    ASSERT_TRUE(lambda.has_value());
    for (int exponent : {900, -900}) {
        const auto scale = [exponent](double x) { return std::scalbn(x, exponent); };
        const auto scaled = tridiagonalEigenvalues(d.unaryExpr(scale), e.unaryExpr(scale));
        ASSERT_TRUE(scaled.has_value()) << "2^" << exponent;
        EXPECT_EQ(*scaled, lambda->unaryExpr(scale)) << "2^" << exponent;
    }
}

TEST(SymmetricEigenvalues, BadInputIsRefusedAndEmptyIsEmpty) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(tridiagonalEigenvalues(Eigen::Vector3d(1, nan, 2), Eigen::Vector2d(1, 1)).has_value());
    EXPECT_FALSE(tridiagonalEigenvalues(Eigen::Vector3d(1, 0, 2), Eigen::Vector2d(inf, 1)).has_value());
    EXPECT_FALSE(tridiagonalEigenvalues(Eigen::Vector3d(1, 0, 2), Eigen::Vector3d(1, 1, 1)).has_value());
    EXPECT_FALSE(symmetricEigenvalues(Eigen::MatrixXd::Constant(3, 3, nan)).has_value());
    EXPECT_FALSE(symmetricEigenvalues(Eigen::MatrixXd::Ones(3, 2)).has_value());
    const auto empty = symmetricEigenvalues(Eigen::MatrixXd(0, 0));
    ASSERT_TRUE(empty.has_value());
    EXPECT_EQ(empty->size(), 0);
    const auto one = tridiagonalEigenvalues(Eigen::VectorXd::Constant(1, -2.5), Eigen::VectorXd(0));
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ((*one)(0), -2.5);
}
