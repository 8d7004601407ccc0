// The spectra's Gram A^T A. Stock Eigen's (the reference) and gramLower (the kernel when built
// with HEADSCOPE_GRAM_KERNEL) agree with the plain sum to a few eps for float and double
// factors read column-major, row-major (a transposed block) or through other strides. The
// kernel's every entry of the lower triangle is, to the last bit, the plain sum over rows in
// order of the products in double (a fused multiply-add only for float factors, whose products
// are exact in double), on shapes around its packets, strips and 64-row tiles. CMake builds this
// file again for each x86-64 level (SSE2, AVX2 with FMA, AVX-512) and runs those this CPU can.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <vector>

#include "Gram.h"
#include "Random.h"
#include "common/RandomMatrix.h"

using namespace headscope;

namespace {

// Lower triangle of A^T A, entry by entry: sum_r A(r, i) A(r, j) in row order.
template <typename Matrix>
Eigen::MatrixXd sequentialGram(const Matrix& a) {
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(a.cols(), a.cols());
    for (Eigen::Index j = 0; j < a.cols(); ++j)
        for (Eigen::Index i = j; i < a.cols(); ++i) {
            double sum = 0;
            for (Eigen::Index r = 0; r < a.rows(); ++r) sum += double(a(r, i)) * double(a(r, j));
            g(i, j) = sum;
        }
    return g;
}

// How many lower-triangle entries differ in any bit.
int differingEntries(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected) {
    if (got.rows() != expected.rows() || got.cols() != expected.cols()) return -1;
    int differing = 0;
    for (Eigen::Index j = 0; j < got.cols(); ++j)
        for (Eigen::Index i = j; i < got.rows(); ++i) differing += got(i, j) != expected(i, j);
    return differing;
}

const std::vector<int> kRows = {0, 1, 7, 8, 9, 63, 64, 65, 130, 768};
const std::vector<int> kCols = {1, 3, 4, 8, 9, 31, 32, 33, 40, 64, 65, 100};

// Largest difference in the lower triangle, relative to the largest diagonal entry (every
// entry of a Gram is at most that in magnitude); -1 for different shapes.
double relativeDifference(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected) {
    if (got.rows() != expected.rows() || got.cols() != expected.cols()) return -1;
    if (got.size() == 0) return 0;
    const double scale = std::max(expected.diagonal().cwiseAbs().maxCoeff(), 1e-300);
    return (got - expected).triangularView<Eigen::Lower>().toDenseMatrix().cwiseAbs().maxCoeff() / scale;
}

}  // namespace

// Rounding error of a sum of `rows` products: at most rows * eps relative to the diagonal,
// here within 1e-13 for every shape up to 768 rows.
TEST(Gram, EigensAndTheBuildsGramAreThePlainSumToAFewEps) {
    Rng rng(13);
    for (int rows : kRows)
        for (int cols : kCols) {
            const Eigen::MatrixXf wide = test::randomNormalMatrix(rows, cols + 7, rng).cast<float>();
            const auto block = wide.middleCols(3, cols);
            const Eigen::MatrixXd expected = sequentialGram(block);
            const Eigen::MatrixXf transposed = block.transpose();
            const Eigen::MatrixXd as_double = block.cast<double>();
            for (const Eigen::MatrixXd& got :
                 {eigenGramLower(strided(block)), eigenGramLower(strided(transposed.transpose())),
                  eigenGramLower(strided(as_double)), gramLower(strided(block)), gramLower(strided(as_double))})
                EXPECT_LE(relativeDifference(got, expected), 1e-13) << rows << " x " << cols;
        }
}

TEST(Gram, EmptyFactorsGiveEmptyOrZeroGrams) {
    const Eigen::MatrixXf no_rows(0, 5), no_cols(10, 0);
    for (const Eigen::MatrixXd& g : {gramLower(strided(no_rows)), eigenGramLower(strided(no_rows))}) {
        ASSERT_EQ(g.rows(), 5);
        EXPECT_TRUE(g.isZero(0));
    }
    EXPECT_EQ(gramLower(strided(no_cols)).size(), 0);
    EXPECT_EQ(eigenGramLower(strided(no_cols)).size(), 0);
}
#if HEADSCOPE_GRAM_KERNEL

TEST(Gram, EveryEntryIsTheSequentialSumForFloatFactorsInEveryLayout) {
    Rng rng(11);
    for (int rows : kRows)
        for (int cols : kCols) {
            // A wider float matrix: its middle columns are a head's (rows, cols) block.
            const Eigen::MatrixXf wide = test::randomNormalMatrix(rows, cols + 7, rng).cast<float>();
            const auto block = wide.middleCols(3, cols);  // column-major, columns contiguous
            const Eigen::MatrixXd expected = sequentialGram(block);
            EXPECT_EQ(differingEntries(kernelGramLower(strided(block)), expected), 0) << rows << " x " << cols;

            // The same block transposed in memory: rows contiguous, read as A = (A^T)^T.
            const Eigen::MatrixXf transposed = block.transpose();  // (cols, rows)
            EXPECT_EQ(differingEntries(kernelGramLower(strided(transposed.transpose())), expected), 0)
                << rows << " x " << cols << " read row-major";

            // Every other element: neither step is 1.
            Eigen::MatrixXf spread = Eigen::MatrixXf::Zero(2 * rows, 2 * cols);
            for (int c = 0; c < cols; ++c)
                for (int r = 0; r < rows; ++r) spread(2 * r, 2 * c) = block(r, c);
            const StridedMatrix<float> sparse{spread.data(), rows, cols, 2, 2 * 2 * rows};
            EXPECT_EQ(differingEntries(kernelGramLower(sparse), expected), 0) << rows << " x " << cols << " strided";
        }
}

TEST(Gram, EveryEntryIsTheSequentialSumForDoubleFactors) {
    Rng rng(12);
    for (int rows : kRows)
        for (int cols : kCols) {
            const Eigen::MatrixXd a = test::randomNormalMatrix(rows, cols, rng);
            EXPECT_EQ(differingEntries(kernelGramLower(strided(a)), sequentialGram(a)), 0) << rows << " x " << cols;
            const Eigen::MatrixXd a_t = a.transpose();
            EXPECT_EQ(differingEntries(kernelGramLower(strided(a_t.transpose())), sequentialGram(a)), 0)
                << rows << " x " << cols << " read row-major";
        }
}

TEST(Gram, ExactZerosAndLowRankColumnsStayExact) {
    // Columns 0 and 2 equal, column 1 zero: the Gram has exact zeros and equal entries.
    Eigen::MatrixXf a(100, 3);
    for (int r = 0; r < 100; ++r) a.row(r) << float(r % 7) - 3.0f, 0.0f, float(r % 7) - 3.0f;
    const Eigen::MatrixXd g = kernelGramLower(strided(a));
    EXPECT_EQ(g(1, 0), 0.0);
    EXPECT_EQ(g(1, 1), 0.0);
    EXPECT_EQ(g(2, 1), 0.0);
    EXPECT_EQ(g(2, 0), g(0, 0));
    EXPECT_EQ(g(2, 2), g(0, 0));
    double expected = 0;
    for (int r = 0; r < 100; ++r) expected += double((r % 7 - 3) * (r % 7 - 3));
    EXPECT_EQ(g(0, 0), expected);
}

#endif  // HEADSCOPE_GRAM_KERNEL
