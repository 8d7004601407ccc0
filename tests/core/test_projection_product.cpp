// Lesson 2's claim with its numbers (projectTwice): (X W_1) W_2 = X (W_1 W_2) with
// W_1 = W_i^Q and W_2 = (W_i^K)^T, against the same products in double precision, the
// difference of the two float orders below the stated rounding bound, and bad input refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "Analysis.h"
#include "ProjectionProduct.h"

using namespace headscope;

namespace {

Config layer(int d_model, int heads, int kv_heads = 0) {
    Config c;
    c.d_model = d_model;
    c.heads = heads;
    c.kv_heads = kv_heads;
    c.text = "The animal didn't cross the street because it was too tired";
    return c;
}

// max |a - b| / max(1, max |b|)
double relativeGap(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

}  // namespace

TEST(ProjectionProduct, BothOrdersEqualTheDoublePrecisionProductAndDifferOnlyByRounding) {
    // Lesson 2 step 5's layer, and a grouped-query one (head 5 reads key head 5 / (6 / 2) = 2).
    for (const Config& c : {layer(64, 4), layer(48, 6, 2)}) {
        ASSERT_TRUE(c.validate().empty());
        const Analysis a = analyze(c, false);
        const Weights& w = a.weights();
        for (int head = 0; head < w.heads; ++head) {
            const ProjectionProduct p = projectTwice(a.input.query.X, w, head);
            const Eigen::MatrixXd X = a.input.query.X.cast<double>();
            const Eigen::MatrixXd W_1 = w.W_Q.middleCols(head * w.d_k, w.d_k).cast<double>();
            const Eigen::MatrixXd W_2 = w.W_K.middleCols(w.kvHeadOf(head) * w.d_k, w.d_k).transpose().cast<double>();
            const Eigen::MatrixXd exact = X * W_1 * W_2;  // (n, d_model)
            ASSERT_EQ(p.first.rows(), X.rows());
            ASSERT_EQ(p.first.cols(), w.d_k);
            ASSERT_EQ(p.twice.cols(), w.dModel());
            // Float products of length <= d_model against double: 1e-5 of the largest entry.
            EXPECT_LT(relativeGap(p.first.cast<double>(), X * W_1), 1e-5);
            EXPECT_LT(relativeGap(p.twice.cast<double>(), exact), 1e-5);
            EXPECT_LT(relativeGap(p.merged.cast<double>(), exact), 1e-5);
            // The reported numbers are the products' own.
            EXPECT_DOUBLE_EQ(p.max_difference, double((p.twice - p.merged).cwiseAbs().maxCoeff()));
            EXPECT_DOUBLE_EQ(p.max_abs, double(p.merged.cwiseAbs().maxCoeff()));
            // The bound: 2 (d_model + d_k) 2^-24 max(|X| |W_1| |W_2|), from the magnitudes in double.
            const double magnitude = ((X.cwiseAbs() * W_1.cwiseAbs()) * W_2.cwiseAbs()).maxCoeff();
            EXPECT_NEAR(p.rounding_bound, 2.0 * (w.dModel() + w.d_k) * 0x1p-24 * magnitude, 1e-6 * p.rounding_bound);
            EXPECT_LE(p.max_difference, p.rounding_bound);
            EXPECT_LT(p.rounding_bound, 1e-3 * p.max_abs) << "rounding, not a different map";
        }
    }
}

TEST(ProjectionProduct, RefusesAMissingHeadAndTokensOfTheWrongWidth) {
    const Analysis a = analyze(layer(64, 4), false);
    EXPECT_THROW(projectTwice(a.input.query.X, a.weights(), 4), std::invalid_argument);
    EXPECT_THROW(projectTwice(a.input.query.X, a.weights(), -1), std::invalid_argument);
    const Eigen::MatrixXf narrow = a.input.query.X.leftCols(32);
    EXPECT_THROW(projectTwice(narrow, a.weights(), 0), std::invalid_argument);
}
