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
    EXPECT_EQ(a.nKeyValue(), 11);
    EXPECT_EQ(a.results.heads.size(), 8u);
    // The costs of this input, from the closed forms (d_model 64, 8 heads of d_k = d_v = 8, 11 tokens).
    EXPECT_EQ(a.cost.total_params, 4 * 64 * 64 + 4 * 64);  // W_Q, W_K, W_V, W_O and their biases
    EXPECT_EQ(a.cost.total_params, a.weights().parameterCount());
    EXPECT_EQ(a.cost.logits_factored_flops, 11 * 64 * 8 + 11 * 64 * 8 + 11 * 11 * 8);
    EXPECT_EQ(a.cost.logits_merged_flops, 11 * 64 * 64 + 11 * 11 * 64);
    EXPECT_EQ(a.cost.attention_flops_per_head, 11 * 11 * (8 + 8));
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
    EXPECT_EQ(a.equivalence->fused_vs_per_head, 0.0);  // the same products: bitwise equal
    EXPECT_LE(a.equivalence->factored_vs_merged, 1e-6 * a.equivalence->max_abs_logit);
    EXPECT_GT(a.equivalence->max_abs_logit, 0.1);
}

TEST(Analysis, ReusesWeightsAndSpectraOnlyWhenTheyAreTheSame) {
    Config c;
    const Analysis first = analyze(c, false);
    Config text = c;
    text.text = "another sentence entirely";
    text.temperature = 0.5;
    text.mask = MaskKind::Causal;
    const Analysis reused = analyze(text, false, &first);
    const Analysis fresh = analyze(text, false);
    EXPECT_EQ(reused.weights().W_Q, fresh.weights().W_Q);
    EXPECT_EQ(reused.spectra[3].qk.singular_values, fresh.spectra[3].qk.singular_values);
    EXPECT_EQ(reused.results.output, fresh.results.output);
    EXPECT_EQ(reused.logits[2].singular_values, fresh.logits[2].singular_values);

    Config seed = c;
    seed.seed = 5;  // different weights: nothing may be reused
    const Analysis other = analyze(seed, false, &first);
    EXPECT_NE(other.weights().W_Q, first.weights().W_Q);
    EXPECT_EQ(other.spectra[0].qk.singular_values, analyze(seed, false).spectra[0].qk.singular_values);

    Config tolerance = c;
    tolerance.rank_rtol = 0.5;  // same weights, other rank tolerance: spectra recomputed
    const Analysis ranked = analyze(tolerance, false, &first);
    EXPECT_LT(ranked.spectra[0].qk.rank, first.spectra[0].qk.rank);
}

TEST(Analysis, SameWeightsComparesResolvedGeometry) {
    Config a, b;
    b.d_k = a.headDimK();  // explicit value equal to the derived one
    b.d_v = a.headDimV();
    EXPECT_TRUE(a.sameWeights(b));
    b.bias = false;
    EXPECT_FALSE(a.sameWeights(b));
    Config normal = a;
    normal.init = InitKind::Normal;
    Config other_sigma = normal;
    other_sigma.init_sigma = 0.5;
    EXPECT_FALSE(normal.sameWeights(other_sigma));
    a.init_sigma = 0.5;  // sigma does not matter for xavier
    EXPECT_TRUE(a.sameWeights(Config{}));
}

TEST(Analysis, ReusesTheInputOnlyWhenItsTextSeedAndWidthAgree) {
    Config c;
    const Analysis first = analyze(c, false);
    Config warmer = c;
    warmer.temperature = 2.0;
    warmer.mask = MaskKind::Causal;
    EXPECT_TRUE(c.sameInput(warmer));
    const Analysis reused = analyze(warmer, false, &first);
    EXPECT_EQ(reused.input.query.X, first.input.query.X);
    EXPECT_EQ(reused.results.output, analyze(warmer, false).results.output);

    // Each of these changes the embeddings: never reused.
    Config text = c, seed = c, cross = c, width = c, random = c, longer = c;
    text.text = "another sentence entirely";
    seed.seed = 9;
    cross.source_text = "a source to attend to";
    width.d_model = 32;
    width.heads = 4;
    random.text.clear();
    longer.text.clear();
    longer.seq_len = random.seq_len + 3;
    for (const Config* changed : {&text, &seed, &cross, &width, &random}) {
        EXPECT_FALSE(c.sameInput(*changed));
        const Analysis next = analyze(*changed, false, &first);
        const Analysis fresh = analyze(*changed, false);
        EXPECT_EQ(next.input.query.X, fresh.input.query.X);
        EXPECT_EQ(next.input.key_value.X, fresh.input.key_value.X);
        EXPECT_EQ(next.input.query.tokens, fresh.input.query.tokens);
    }
    EXPECT_FALSE(random.sameInput(longer));
    const Analysis drawn = analyze(random, false);
    EXPECT_EQ(analyze(longer, false, &drawn).input.query.X.rows(), longer.seq_len);
}

TEST(Analysis, BeforeSpectraSeesTheForwardPassDoneAndTheSpectraNotYet) {
    Config c;
    Analysis a;
    int calls = 0;
    analyzeInto(a, c, false, nullptr, nullptr, [&] {
        ++calls;
        EXPECT_EQ(a.results.heads.size(), std::size_t(c.heads));
        EXPECT_TRUE(a.results.output.allFinite());
        EXPECT_EQ(a.cost.total_params, computeCost(c, a.nQuery(), a.nKeyValue()).total_params);
        EXPECT_TRUE(a.spectra.empty());
        EXPECT_TRUE(a.logits.empty());
    });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(a.spectra.size(), std::size_t(c.heads));
    EXPECT_EQ(a.results.output, analyze(c, false).results.output);

    Config warmer = c;
    warmer.temperature = 3;  // same weights: spectra reused, the logits' spectra still to come
    Analysis b;
    analyzeInto(b, warmer, false, &a, nullptr, [&] {
        ++calls;
        EXPECT_EQ(b.results.heads.size(), std::size_t(c.heads));
        EXPECT_TRUE(b.spectra.empty());
        EXPECT_TRUE(b.logits.empty());
    });
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(b.spectra[0].qk.singular_values, a.spectra[0].qk.singular_values);
}

TEST(Analysis, TheSameWeightsAreSharedNotCopied) {
    Config c;
    const Analysis first = analyze(c, false);
    c.temperature = 2.0;  // same weights: the new analysis points at the first one's
    const Analysis hotter = analyze(c, false, &first);
    EXPECT_EQ(hotter.shared_weights.get(), first.shared_weights.get());
    c.seed += 1;  // new weights: their own
    const Analysis reseeded = analyze(c, false, &hotter);
    EXPECT_NE(reseeded.shared_weights.get(), hotter.shared_weights.get());
    EXPECT_NE(reseeded.weights().W_Q, hotter.weights().W_Q);
}
