// Householder tridiagonalisation (values only) against Eigen's: the same tridiagonal in
// reverse order (ours reduces from the last column, Eigen's from the first), the same
// eigenvalues, exact on matrices that are already tridiagonal, lower triangle read only.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "Random.h"
#include "Tridiagonalization.h"
#include "common/RandomMatrix.h"

using namespace headscope;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Sizes around the packet (8) and block (32) boundaries, and the spectra's 64.
const int kSizes[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 70, 97};

Eigen::MatrixXd randomSymmetric(int n, Rng& rng) {
    const Eigen::MatrixXd a = test::randomNormalMatrix(n, n, rng);
    return a + a.transpose();
}

// P m P with P the exchange matrix: rows and columns in reverse order.
Eigen::MatrixXd reversed(const Eigen::MatrixXd& m) { return m.colwise().reverse().rowwise().reverse(); }

}  // namespace

TEST(Tridiagonalization, IsEigensTridiagonalOfTheReversedMatrix) {
    // Reducing from the last column with the same reflectors (beta of the sign opposite to
    // the pivot) is Eigen's reduction of P m P, read backwards: entry by entry, signs included.
    // Entries of T are not backward-stable quantities (only its eigenvalues are), so this holds
    // for well-separated spectra only, such as these random ones, to 1e-12 relative (seen: 1e-14).
    Rng rng(71);
    double worst = 0;
    for (const int n : kSizes) {
        const Eigen::MatrixXd m = randomSymmetric(n, rng);
        Eigen::VectorXd diagonal, off;
        tridiagonalize(m, diagonal, off);
        ASSERT_EQ(diagonal.size(), n);
        ASSERT_EQ(off.size(), std::max(n - 1, 0));
        if (n == 0) continue;
        const Eigen::Tridiagonalization<Eigen::MatrixXd> eigen(reversed(m));
        const double scale = m.norm();
        const double diagonal_error = (diagonal - Eigen::VectorXd(eigen.diagonal().reverse())).cwiseAbs().maxCoeff();
        const double off_error = n > 1 ? (off - Eigen::VectorXd(eigen.subDiagonal().reverse())).cwiseAbs().maxCoeff() : 0.0;
        worst = std::max({worst, diagonal_error / scale, off_error / scale});
        EXPECT_LT(diagonal_error, 1e-12 * scale) << "n " << n;
        EXPECT_LT(off_error, 1e-12 * scale) << "n " << n;
    }
    std::printf("worst entry difference / ||m||_F = %.3g\n", worst);
}

TEST(Tridiagonalization, KeepsTheEigenvaluesAndTheFrobeniusNorm) {
    Rng rng(72);
    for (const int n : kSizes) {
        if (n == 0) continue;
        const Eigen::MatrixXd m = randomSymmetric(n, rng);
        Eigen::VectorXd diagonal, off;
        tridiagonalize(m, diagonal, off);
        // An orthogonal similarity keeps ||m||_F: sum d_i^2 + 2 sum e_i^2.
        const double frobenius = std::sqrt(diagonal.squaredNorm() + 2 * off.squaredNorm());
        EXPECT_NEAR(frobenius, m.norm(), 4 * n * kEps * m.norm()) << "n " << n;
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> of_tridiagonal;
        of_tridiagonal.computeFromTridiagonal(diagonal, off, Eigen::EigenvaluesOnly);
        const Eigen::VectorXd expected = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m, Eigen::EigenvaluesOnly).eigenvalues();
        const double scale = expected.cwiseAbs().maxCoeff();
        EXPECT_LT((of_tridiagonal.eigenvalues() - expected).cwiseAbs().maxCoeff(), 8 * n * kEps * scale) << "n " << n;
    }
}

TEST(Tridiagonalization, LeavesATridiagonalAsItIs) {
    // Every reflector has nothing to zero, so is the identity: the result is exact.
    Rng rng(73);
    for (const int n : kSizes) {
        Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
        for (int i = 0; i < n; ++i) m(i, i) = rng.normal();
        for (int i = 0; i + 1 < n; ++i) m(i + 1, i) = m(i, i + 1) = (i % 5 == 2) ? 0.0 : rng.normal();
        Eigen::VectorXd diagonal, off;
        tridiagonalize(m, diagonal, off);
        EXPECT_EQ(diagonal, Eigen::VectorXd(m.diagonal())) << "n " << n;
        if (n > 1) EXPECT_EQ(off, Eigen::VectorXd(m.diagonal(-1))) << "n " << n;
    }
}

TEST(Tridiagonalization, ReadsTheLowerTriangleOnly) {
    Rng rng(74);
    for (const int n : {5, 33, 64}) {
        const Eigen::MatrixXd m = randomSymmetric(n, rng);
        Eigen::MatrixXd lower = m;
        lower.triangularView<Eigen::StrictlyUpper>().setConstant(std::numeric_limits<double>::quiet_NaN());
        Eigen::VectorXd diagonal, off, diagonal_lower, off_lower;
        tridiagonalize(m, diagonal, off);
        tridiagonalize(lower, diagonal_lower, off_lower);
        EXPECT_EQ(diagonal, diagonal_lower) << "n " << n;
        EXPECT_EQ(off, off_lower) << "n " << n;
    }
}
