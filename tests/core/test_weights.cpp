// Seeded initialisers: PyTorch's distributions, identical numbers on every machine.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "Random.h"
#include "Weights.h"

using namespace headscope;

TEST(Random, Mt19937_64IsTheStandardsEngine) {
    // The C++ standard fixes the 10000th output of mt19937_64 with the default seed.
    Rng rng(5489u);
    std::uint64_t x = 0;
    for (int i = 0; i < 10000; ++i) x = rng.next();
    EXPECT_EQ(x, 9981545732273789042ULL);
}

TEST(Random, OwnEngineIsStdMt19937_64WordForWord) {
    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489}, std::uint64_t{0xdeadbeefcafef00d}, deriveSeed(7, "W_Q")}) {
        std::mt19937_64 reference(seed);
        Mt19937_64 engine(seed);
        for (int i = 0; i < 3 * 312 + 5; ++i) ASSERT_EQ(engine(), reference()) << "seed " << seed << ", word " << i;
    }
}

TEST(Random, UniformIsTheTop53BitsConvertedExactly) {
    // toUniform01 converts in two halves (it vectorises so): the same double as the plain cast,
    // at the edges of each half and for a million engine words.
    const auto plain = [](std::uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; };
    for (std::uint64_t word : {0ULL, 1ULL << 11, (1ULL << 37) - 1, 1ULL << 37, (1ULL << 37) + (1ULL << 11),
                               0x8000000000000000ULL, ~0ULL, ~0ULL << 11, 0x5555555555555555ULL})
        ASSERT_EQ(Rng::toUniform01(word), plain(word)) << word;
    Mt19937_64 engine(deriveSeed(3, "uniform"));
    for (int i = 0; i < 1000000; ++i) {
        const std::uint64_t word = engine();
        ASSERT_EQ(Rng::toUniform01(word), plain(word)) << word;
    }
    EXPECT_LT(Rng::toUniform01(~0ULL), 1.0);
}

TEST(Random, FillUniformIsALoopOfUniformCalls) {
    // Blocks of any length, from any position in the engine's block of 312 words, between
    // single draws and normals: the same numbers as one call per number.
    Rng blocks(99), calls(99);
    for (std::size_t count : {1u, 5u, 311u, 312u, 313u, 1000u, 7u}) {
        std::vector<float> out(count);
        blocks.fillUniform(out.data(), count, -0.25, 0.75);
        for (std::size_t i = 0; i < count; ++i)
            ASSERT_EQ(out[i], static_cast<float>(calls.uniform(-0.25, 0.75))) << "count " << count << ", " << i;
        ASSERT_EQ(blocks.next(), calls.next());
        ASSERT_EQ(blocks.normal(), calls.normal());
    }
}

TEST(Random, UniformAndNormalMoments) {
    Rng rng(42);
    double sum = 0, sum2 = 0, nsum = 0, nsum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double u = rng.uniform01();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u, sum2 += u * u;
        const double z = rng.normal();
        nsum += z, nsum2 += z * z;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.005);
    EXPECT_NEAR(sum2 / n - 0.25, 1.0 / 12, 0.002);
    EXPECT_NEAR(nsum / n, 0.0, 0.01);
    EXPECT_NEAR(nsum2 / n, 1.0, 0.01);
}

TEST(Weights, SameSeedSameNumbersOtherSeedOtherNumbers) {
    Config c;
    const Weights a = makeWeights(c), b = makeWeights(c);
    EXPECT_EQ(a.W_Q, b.W_Q);
    EXPECT_EQ(a.W_O, b.W_O);
    c.seed = 1;
    EXPECT_NE(makeWeights(c).W_Q, a.W_Q);
}

TEST(Weights, GoldenValuesPinTheGeneratorAcrossMachines) {
    // Written down once from this generator: if this fails, every user's numbers changed.
    Config c;
    c.d_model = 4;
    c.heads = 2;
    const Weights w = makeWeights(c);
    EXPECT_FLOAT_EQ(w.W_Q(0, 0), -0.0173206124f);
    EXPECT_FLOAT_EQ(w.W_Q(0, 1), -0.592259645f);
    Rng rng(1);
    EXPECT_EQ(rng.next(), 2469588189546311528ULL);  // std::mt19937_64(1)'s first word
}

TEST(Weights, UniformFillDrawsRowByRow) {
    // Each matrix is its own stream drawn in row-major order, whatever the blocking inside
    // (40 rows: two blocks of 16 and one of 8).
    Config c;
    c.d_model = 40;
    c.heads = 5;
    c.seed = 3;
    const Weights w = makeWeights(c);
    const double in_bound = std::sqrt(6.0 / (40 + 3 * 40)), out_bound = 1.0 / std::sqrt(40.0);
    const std::pair<const Eigen::MatrixXf*, const char*> matrices[] = {
        {&w.W_Q, "W_Q"}, {&w.W_K, "W_K"}, {&w.W_V, "W_V"}, {&w.W_O, "W_O"}};
    for (const auto& [m, name] : matrices) {
        Rng rng(deriveSeed(c.seed, name));
        const double bound = m == &w.W_O ? out_bound : in_bound;
        for (Eigen::Index r = 0; r < m->rows(); ++r)
            for (Eigen::Index col = 0; col < m->cols(); ++col)
                ASSERT_EQ((*m)(r, col), static_cast<float>(rng.uniform(-bound, bound))) << name << " " << r << "," << col;
    }
}

TEST(Weights, XavierMatchesPyTorchsMultiheadAttentionDefault) {
    Config c;
    c.d_model = 256;
    c.heads = 4;
    const Weights w = makeWeights(c);
    const double in_bound = std::sqrt(6.0 / (256 + 3 * 256));  // xavier over in_proj (768, 256)
    const double out_bound = 1.0 / std::sqrt(256.0);            // kaiming_uniform(a = sqrt 5)
    EXPECT_LE(w.W_Q.cwiseAbs().maxCoeff(), in_bound);
    EXPECT_GT(w.W_Q.cwiseAbs().maxCoeff(), 0.99 * in_bound);
    EXPECT_LE(w.W_O.cwiseAbs().maxCoeff(), out_bound);
    EXPECT_GT(w.W_O.cwiseAbs().maxCoeff(), 0.99 * out_bound);
    const double var = w.W_V.array().square().mean();
    EXPECT_NEAR(var, in_bound * in_bound / 3, 0.02 * in_bound * in_bound / 3);
    EXPECT_TRUE(w.b_Q.isZero(0));
    EXPECT_TRUE(w.b_O.isZero(0));
    EXPECT_EQ(w.b_K.size(), 256);
}

TEST(Weights, NormalInitHasTheRequestedSigma) {
    Config c;
    c.d_model = 256;
    c.heads = 4;
    c.init = InitKind::Normal;
    c.init_sigma = 0.05;
    const Weights w = makeWeights(c);
    const double sd = std::sqrt(w.W_K.array().square().mean());
    EXPECT_NEAR(sd, 0.05, 0.001);
    EXPECT_NEAR(w.W_K.mean(), 0.0, 0.001);
    EXPECT_FALSE(w.b_V.isZero(0));
}

TEST(Weights, NoBiasMeansEmptyBiases) {
    Config c;
    c.bias = false;
    const Weights w = makeWeights(c);
    EXPECT_FALSE(w.hasBias());
    EXPECT_EQ(w.check(), "");
}

TEST(Weights, CheckFindsNaNAndBadShapes) {
    Config c;
    Weights w = makeWeights(c);
    w.W_V(3, 2) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(w.check().find("W_V contains a non-finite value"), std::string::npos);
    w = makeWeights(c);
    w.W_O.conservativeResize(w.W_O.rows() - 1, Eigen::NoChange);
    EXPECT_NE(w.check().find("W_O has shape"), std::string::npos);
}
