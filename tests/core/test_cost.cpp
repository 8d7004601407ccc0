// Parameter and FLOP counts against the closed forms, worked out by hand.
#include <gtest/gtest.h>

#include "Cost.h"
#include "Weights.h"

using namespace headscope;

TEST(Cost, BertBaseNumbersByHand) {
    Config c;
    c.d_model = 768;
    c.heads = 12;
    const Cost cost = computeCost(c, 128, 128);
    EXPECT_EQ(cost.qk_factored_params, 98304);        // 2 * 768 * 64
    EXPECT_EQ(cost.qk_merged_params, 589824);         // 768^2
    EXPECT_EQ(cost.logits_factored_flops, 13631488);  // 2*128*768*64 + 128^2*64
    EXPECT_EQ(cost.logits_merged_flops, 88080384);    // 128*768^2 + 128^2*768
    EXPECT_EQ(cost.attention_flops_per_head, 2097152);  // 128^2 * (64 + 64)
    EXPECT_EQ(cost.total_params, 2362368);            // 4*768^2 + 4*768
}

TEST(Cost, TotalEqualsTheWeightsActuallyBuilt) {
    for (bool bias : {true, false}) {
        Config c;
        c.d_model = 48;
        c.heads = 6;
        c.kv_heads = 2;
        c.d_k = 5;
        c.d_v = 7;
        c.bias = bias;
        const Weights w = makeWeights(c);
        EXPECT_EQ(computeCost(c, 9, 4).total_params, w.parameterCount());
        // GQA: W_K, W_V hold kv_heads, not heads, blocks.
        EXPECT_EQ(w.parameterCount(), 48 * 30 + 48 * 10 + 48 * 14 + 42 * 48 + (bias ? 30 + 10 + 14 + 48 : 0));
    }
}

TEST(Cost, CrossAttentionCountsQueriesAndKeysSeparately) {
    Config c;
    c.d_model = 10;
    c.heads = 2;  // d_k 5
    const Cost cost = computeCost(c, 3, 7);
    EXPECT_EQ(cost.logits_factored_flops, 3 * 10 * 5 + 7 * 10 * 5 + 3 * 7 * 5);
    EXPECT_EQ(cost.logits_merged_flops, 3 * 100 + 3 * 7 * 10);
}
