// Downsample.h against closed forms: each cell its block's largest value (or the value of largest
// magnitude, signed), blocks split as evenly as integers allow, masked and non-finite cells left out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "Downsample.h"

using namespace headscope;

TEST(Downsample, OneSharpKeyStaysVisibleInItsBlock) {
    // 2048 queries, each with its whole weight on key 1000 (a sharp column): in 64 x 64 cells the
    // column of block 1000 * 64 / 2048 = 31 holds 1 in every row, every other cell 0.
    const int n = 2048, cells = 64;
    Eigen::MatrixXf w = Eigen::MatrixXf::Zero(n, n);
    w.col(1000).setOnes();
    const Eigen::MatrixXf small = downsample(w, cells, cells, Pool::Max);
    ASSERT_EQ(small.rows(), cells);
    ASSERT_EQ(small.cols(), cells);
    for (int r = 0; r < cells; ++r)
        for (int c = 0; c < cells; ++c) EXPECT_EQ(small(r, c), c == 31 ? 1.0f : 0.0f) << r << ", " << c;
}

TEST(Downsample, UnevenBlocksFollowIntegerBoundaries) {
    // 5 rows into 2: blocks [0, 2) and [2, 5); 3 columns into 2: [0, 1) and [1, 3).
    Eigen::MatrixXf m(5, 3);
    m << 1, 2, 3,
         4, 5, 6,
         7, 8, 9,
         10, 11, 12,
         13, 14, 15;
    Eigen::MatrixXf expected(2, 2);
    expected << 4, 6,
                13, 15;
    EXPECT_EQ(downsample(m, 2, 2, Pool::Max), expected);
    EXPECT_EQ(poolFirst(1, 5, 2), 2);
    EXPECT_EQ(downsample(m, 5, 3, Pool::Max), m);  // no smaller: itself
    EXPECT_EQ(downsample(m, 9, 9, Pool::Max), m);  // a larger grid is clamped to the matrix
}

TEST(Downsample, ExtremeKeepsTheSignOfTheLargestMagnitude) {
    Eigen::MatrixXf logits(2, 2);
    logits << 0.5f, -3.0f,
              2.0f, 1.0f;
    EXPECT_EQ(downsample(logits, 1, 1, Pool::Extreme)(0, 0), -3.0f);
    EXPECT_EQ(downsample(logits, 1, 1, Pool::Max)(0, 0), 2.0f);
}

TEST(Downsample, MaskedAndNonFiniteCellsAreLeftOutAndAnEmptyBlockIsNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    Eigen::MatrixXf logits(2, 4);
    logits << 1, -inf, 9, 9,
              2, 3, 9, 9;
    MaskMatrix allowed(2, 4);
    allowed << true, false, false, false,
               true, true, false, false;
    const Eigen::MatrixXf small = downsample(logits, 1, 2, Pool::Extreme, allowed);  // (1, 2)
    EXPECT_EQ(small(0, 0), 3.0f);  // -inf and the masked 9s are not the largest
    EXPECT_TRUE(std::isnan(small(0, 1)));  // every cell masked
}

TEST(Downsample, PoolingThePooledMapsAgainGivesTheSameCells) {
    // A causal 1500-token head pooled to kPooledCells, then to 256 and 128, equals the map pooled
    // to those directly (the blocks nest: 256 and 128 divide 512), masked blocks NaN in both.
    const int n = 1500;
    std::srand(4);
    Eigen::MatrixXf logits = Eigen::MatrixXf::Random(n, n) * 5.0f;  // (n, n)
    MaskMatrix allowed(n, n);
    for (int q = 0; q < n; ++q)
        for (int k = 0; k < n; ++k) allowed(q, k) = k <= q;
    Results r;
    r.allowed = allowed;
    r.heads.push_back({logits, logits.array().abs().matrix(), Eigen::MatrixXf(), Eigen::MatrixXf()});
    const PooledMaps pooled = poolMaps(r, AttentionOptions{});
    ASSERT_EQ(pooled.logits.front().rows(), kPooledCells);
    for (int cells : {256, 128}) {
        const Eigen::MatrixXf again = downsample(pooled.logits.front(), cells, cells, Pool::Extreme);
        const Eigen::MatrixXf direct = downsample(logits, cells, cells, Pool::Extreme, allowed);
        for (int i = 0; i < cells; ++i)
            for (int j = 0; j < cells; ++j) {
                if (std::isnan(direct(i, j))) EXPECT_TRUE(std::isnan(again(i, j))) << cells << ": " << i << ", " << j;
                else EXPECT_EQ(again(i, j), direct(i, j)) << cells << ": " << i << ", " << j;
            }
        EXPECT_EQ(downsample(pooled.weights.front(), cells, cells, Pool::Max).maxCoeff(),
                  downsample(r.heads.front().weights, cells, cells, Pool::Max, allowed).maxCoeff());
    }
    // The coarse copies kept beside them (a grid's panels) are the maps pooled to kCoarseCells.
    static_assert(kCoarseCells == 256);
    const Eigen::MatrixXf coarse_logits = downsample(logits, kCoarseCells, kCoarseCells, Pool::Extreme, allowed);
    const Eigen::MatrixXf coarse_weights =
        downsample(r.heads.front().weights, kCoarseCells, kCoarseCells, Pool::Max, allowed);
    ASSERT_EQ(pooled.coarse_logits.front().rows(), kCoarseCells);
    ASSERT_EQ(pooled.coarse_weights.front().cols(), kCoarseCells);
    for (int i = 0; i < kCoarseCells; ++i)
        for (int j = 0; j < kCoarseCells; ++j) {
            if (std::isnan(coarse_logits(i, j))) {
                EXPECT_TRUE(std::isnan(pooled.coarse_logits.front()(i, j))) << i << ", " << j;
                EXPECT_TRUE(std::isnan(pooled.coarse_weights.front()(i, j))) << i << ", " << j;
            } else {
                EXPECT_EQ(pooled.coarse_logits.front()(i, j), coarse_logits(i, j)) << i << ", " << j;
                EXPECT_EQ(pooled.coarse_weights.front()(i, j), coarse_weights(i, j)) << i << ", " << j;
            }
        }
}

TEST(Downsample, MapExtremesAreTheLargestUnmaskedValuesFromTheMapsOrTheirPooledCopies) {
    // Two causal heads of 700 tokens: every value under the diagonal below 3 in magnitude, one cell
    // each of 7 (head 0, a weight) and -9 (head 1, a logit) allowed, and larger values, NaN and
    // infinity where the mask hides them or the value is not finite: the extremes are 7 and 9.
    const int n = 700;
    std::srand(11);
    MaskMatrix allowed(n, n);
    for (int q = 0; q < n; ++q)
        for (int k = 0; k < n; ++k) allowed(q, k) = k <= q;
    Results r;
    r.allowed = allowed;
    for (int h = 0; h < 2; ++h) {
        Eigen::MatrixXf logits = Eigen::MatrixXf::Random(n, n) * 3.0f;  // (n, n), |v| < 3
        Eigen::MatrixXf weights = logits.array().abs().matrix();
        logits(10, 600) = weights(10, 600) = 100.0f;  // masked (key after query)
        logits(650, 3) = weights(650, 3) = std::numeric_limits<float>::infinity();
        logits(651, 4) = weights(651, 4) = std::numeric_limits<float>::quiet_NaN();
        r.heads.push_back({logits, weights, Eigen::MatrixXf(), Eigen::MatrixXf()});
    }
    r.heads[0].weights(400, 200) = 7.0f;
    r.heads[1].logits(500, 499) = -9.0f;
    const PooledMaps pooled = poolMaps(r, AttentionOptions{});
    for (const PooledMaps* from : {static_cast<const PooledMaps*>(nullptr), &pooled}) {
        const MapExtremes e = mapExtremes(r, from, AttentionOptions{});
        ASSERT_EQ(e.weights.size(), 2u);
        ASSERT_EQ(e.logits.size(), 2u);
        EXPECT_EQ(e.weights[0], 7.0);
        EXPECT_EQ(e.logits[1], 9.0);
        for (int h = 0; h < 2; ++h) {  // the others: the largest of the random values, below 3
            EXPECT_LT(h == 0 ? e.logits[0] : e.weights[1], 3.0);
            EXPECT_GT(h == 0 ? e.logits[0] : e.weights[1], 2.9);
        }
        EXPECT_EQ(e.logits[0], mapExtremes(r, nullptr, AttentionOptions{}).logits[0]);
    }
}
