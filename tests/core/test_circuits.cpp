// The numbers behind "why W_Q and W_K rather than one W_QK?", "is the embedding split?" and
// "3 linear layers or 3h?": full spectra with their exact zeros, rank bounds, the identity
// initialiser, the circuits of a head and the costs of each variant.
#include <gtest/gtest.h>

#include "Analysis.h"
#include "Circuits.h"
#include "Cost.h"
#include "Engine.h"
#include "Input.h"
#include "Spectrum.h"
#include "Weights.h"

using namespace headscope;

namespace {
Config geometry(int d_model, int heads, int d_k = 0) {
    Config c;
    c.d_model = d_model;
    c.heads = heads;
    c.d_k = d_k;
    c.d_v = d_k;
    return c;
}
}  // namespace

TEST(FullSpectrum, SixtyFourValuesFourAboveToleranceSixtyZero) {
    const Config c = geometry(64, 4, 4);
    ASSERT_TRUE(c.validate().empty());
    const Analysis a = analyze(c, false);
    for (int h = 0; h < 4; ++h) {
        const Spectrum& s = a.spectra[h].qk;
        const Eigen::VectorXd all = allSingularValues(s, 64, 64);
        ASSERT_EQ(all.size(), 64);
        EXPECT_EQ(s.rank, 4);
        EXPECT_EQ((all.array() > s.tolerance).count(), 4);
        EXPECT_EQ((all.array() == 0.0).count(), 60) << "indices past d_k are exact zeros";
        EXPECT_EQ(zeroCount(s, 64, 64), 60);
        // The computed values come first, unchanged.
        EXPECT_EQ(all.head(s.singular_values.size()), s.singular_values);
    }
}

TEST(FullSpectrum, BoundIsMinOfDkAndDModel) {
    const Config c = geometry(16, 1, 32);
    ASSERT_TRUE(c.validate().empty());
    const Analysis a = analyze(c, false);
    EXPECT_EQ(rankBound(a.weights().d_k, a.weights().dModel(), a.weights().dModel()), 16);
    EXPECT_EQ(a.spectra[0].qk.rank, 16);  // random factors: full rank up to the bound
    EXPECT_EQ(allSingularValues(a.spectra[0].qk, 16, 16).size(), 16);
    EXPECT_EQ(zeroCount(a.spectra[0].qk, 16, 16), 0);
    EXPECT_EQ(rankBound(4, 3, 9), 3);  // logits of 3 queries: at most 3 whatever d_k
}

TEST(IdentityInit, OneHeadIsNoProjectionToTheLastBit) {
    Config c = geometry(32, 1);
    c.init = InitKind::Identity;
    ASSERT_TRUE(c.validate().empty());
    const Analysis a = analyze(c, false);
    const Eigen::MatrixXf& X = a.input.query.X;
    // Q = K = V = X exactly: I is exact in float and the biases are zero.
    EXPECT_TRUE(a.results.Q == X);
    EXPECT_TRUE(a.results.K == X);
    EXPECT_TRUE(a.results.V == X);
}

TEST(IdentityInit, EachHeadReadsOnlyItsSlice) {
    Config c = geometry(24, 3);
    c.init = InitKind::Identity;
    ASSERT_TRUE(c.validate().empty());
    const Weights w = makeWeights(c);
    for (int h = 0; h < 3; ++h) {
        const Eigen::MatrixXf qk = mergedQK(w, h);  // (24, 24): ones on the head's diagonal block
        Eigen::MatrixXf expected = Eigen::MatrixXf::Zero(24, 24);
        expected.block(h * 8, h * 8, 8, 8).setIdentity();
        EXPECT_TRUE(qk == expected) << "head " << h;
    }
}

TEST(IdentityInit, NonSquareGeometryIsRefusedInWords) {
    Config c = geometry(24, 3, 5);
    c.init = InitKind::Identity;
    const auto problems = c.validate();
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("identity initialiser"), std::string::npos) << problems[0];
    EXPECT_EQ(initKindFromString("identity"), InitKind::Identity);
    EXPECT_FALSE(initKindFromString("eye").has_value());
}

TEST(Circuits, AreTheProductsOfTheHeadsBlocks) {
    Config c = geometry(20, 4);
    c.d_k = 3;
    c.d_v = 6;
    c.kv_heads = 2;
    ASSERT_TRUE(c.validate().empty());
    const Weights w = makeWeights(c);
    for (int h = 0; h < 4; ++h) {
        const Circuits circuits = headCircuits(w, h);
        const int g = h / 2;
        const Eigen::MatrixXf qk = w.W_Q.middleCols(h * 3, 3) * w.W_K.middleCols(g * 3, 3).transpose();
        const Eigen::MatrixXf ov = w.W_V.middleCols(g * 6, 6) * w.W_O.middleRows(h * 6, 6);
        EXPECT_TRUE(circuits.W_QK == qk) << "head " << h;
        EXPECT_TRUE(circuits.W_OV == ov) << "head " << h;
        EXPECT_EQ(circuits.W_QK.rows(), 20);
        EXPECT_EQ(circuits.W_OV.cols(), 20);
    }
}

TEST(Cost, ProjectionsAndAttentionOfEachVariantByHand) {
    Config c = geometry(512, 8);  // d_k = d_v = 64
    const Cost cost = computeCost(c, 10, 10);
    // Q, K, V, O: 4 * n * d_model * d_model when h d_k = d_model.
    EXPECT_EQ(cost.projection_flops, 4LL * 10 * 512 * 512);
    // 8 heads of 64 cost exactly one full-width head of 512.
    EXPECT_EQ(cost.attention_flops_all_heads, 8LL * 10 * 10 * (64 + 64));
    EXPECT_EQ(cost.attention_flops_full_width, 10LL * 10 * 2 * 512);
    EXPECT_EQ(cost.attention_flops_all_heads, cost.attention_flops_full_width);
    c.d_k = c.d_v = 16;  // smaller heads: cheaper attention, same d_model
    const Cost small = computeCost(c, 10, 7);
    EXPECT_EQ(small.projection_flops, 10LL * 512 * 128 + 7LL * 512 * (128 + 128) + 10LL * 128 * 512);
    EXPECT_EQ(small.attention_flops_all_heads, 8LL * 10 * 7 * 32);
}

TEST(Equivalence, EveryKeyMaskedMeansNothingToCompare) {
    Config c = geometry(16, 2);
    c.text = "one two three";
    c.padded_keys = {0, 1, 2};
    ASSERT_TRUE(c.validate().empty());
    const Analysis a = analyze(c, true);
    ASSERT_TRUE(a.equivalence.has_value());
    EXPECT_EQ(a.equivalence->compared_cells, 0);
    c.padded_keys = {1};
    const Analysis partly = analyze(c, true);
    EXPECT_EQ(partly.equivalence->compared_cells, 2 * 3 * 2);  // 2 heads x 3 queries x 2 keys
}
