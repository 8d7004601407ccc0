// analyze(): the one pipeline the CLI and GUI share.
#include <gtest/gtest.h>

#include "Analysis.h"

using namespace headscope;

TEST(Analysis, DemoConfigurationIsComplete) {
    const Config c;
    const Analysis a = analyze(c, true);
    ASSERT_EQ(a.spectra.size(), 8u);
    ASSERT_EQ(a.logits.size(), 8u);
    ASSERT_TRUE(a.equivalence.has_value());
    EXPECT_EQ(a.nQuery(), 11);  // The animal didn't cross the street because it was too tired
    EXPECT_EQ(a.results.heads.size(), 8u);
    EXPECT_EQ(a.cost.total_params, computeCost(c, 12, 12).total_params);
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(a.spectra[i].qk.rank, 8);  // d_k = 64 / 8
        EXPECT_LE(a.logits[i].rank, 8);
    }
}

TEST(Analysis, EquivalenceCanBeAddedLater) {
    Analysis a = analyze(Config{}, false);
    EXPECT_FALSE(a.equivalence.has_value());
    addEquivalence(a);
    ASSERT_TRUE(a.equivalence.has_value());
    EXPECT_LT(a.equivalence->factored_vs_merged, 1e-4 * a.equivalence->max_abs_logit);
}
