// The values-only SVD against Eigen's JacobiSVD on random, rank-deficient and graded matrices.
#include <gtest/gtest.h>

#include <Eigen/SVD>

#include "Random.h"
#include "common/RandomMatrix.h"
#include "SingularValues.h"

using namespace headscope;

TEST(SingularValues, AgreeWithJacobiSvdOnManyShapes) {
    Rng rng(11);
    double worst = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int m = 1 + int(rng.next() % 70), n = 1 + int(rng.next() % 70);
        Eigen::MatrixXd a = test::randomNormalMatrix(m, n, rng);
        if (trial % 3 == 0 && n > 2) {  // rank-deficient: a repeated and a zero column
            a.col(1) = 3 * a.col(0);
            a.col(n - 1).setZero();
        }
        if (trial % 5 == 0) a = a * Eigen::VectorXd::LinSpaced(n, 1e-9, 1).asDiagonal();  // graded
        const Eigen::VectorXd expected = Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues();
        const Eigen::VectorXd actual = singularValues(a);
        ASSERT_EQ(actual.size(), expected.size());
        const double diff = (actual - expected).cwiseAbs().maxCoeff() / std::max(1e-300, expected(0));
        worst = std::max(worst, diff);
        ASSERT_LT(diff, 1e-13) << "trial " << trial << " (" << m << " x " << n << ")";
        for (int i = 1; i < actual.size(); ++i) ASSERT_GE(actual(i - 1), actual(i));
    }
    std::printf("worst |sv - jacobi| / sigma_max = %.3g over 300 matrices\n", worst);
}

TEST(SingularValues, EdgeCases) {
    EXPECT_EQ(singularValues(Eigen::MatrixXd::Zero(4, 3)), Eigen::VectorXd::Zero(3));
    Eigen::MatrixXd one(1, 1);
    one << -2.5;
    EXPECT_DOUBLE_EQ(singularValues(one)(0), 2.5);
    Eigen::MatrixXd diag = Eigen::MatrixXd::Zero(3, 3);
    diag.diagonal() << 1, -7, 3;
    const Eigen::VectorXd s = singularValues(diag);
    EXPECT_DOUBLE_EQ(s(0), 7);
    EXPECT_DOUBLE_EQ(s(1), 3);
    EXPECT_DOUBLE_EQ(s(2), 1);
    EXPECT_EQ(singularValues(Eigen::MatrixXd(0, 0)).size(), 0);
}
