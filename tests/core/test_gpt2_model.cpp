// The GPT-2 forward pass: against reference tensors of a hand-written PyTorch GPT-2
// (tests/data/make_gpt2_reference.py: F32, F16, BF16; prefixed or not; tied or untied
// lm_head), on the two real trained checkpoints in ../shared/models, and the Analysis of
// one layer that the single-layer views and exports read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/Gpt2Checkpoint.h"
#include "io/Npy.h"
#include "model/Forward.h"
#include "model/WeightSpectra.h"
#include "common/AttentionDiff.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using namespace headscope;
using test::kGpt2Cases;
using test::kSharedModels;
using test::maxAttentionDiff;
using ::testing::ElementsAre;

namespace {


#define SKIP_WITHOUT_MODEL(name)                                                             \
    if (!fs::exists(kSharedModels / name / "model.safetensors"))                             \
    GTEST_SKIP() << "the trained checkpoint " << (kSharedModels / name) << " is absent (it " \
                 << "lives beside the project in ../shared/models, never in it)"

nlohmann::json readJson(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

double maxMatrixDiff(const Eigen::MatrixXf& got, const io::Tensor& expected) {
    const Eigen::MatrixXf want = io::toMatrix(expected);
    EXPECT_EQ(got.rows(), want.rows());
    EXPECT_EQ(got.cols(), want.cols());
    if (got.rows() != want.rows() || got.cols() != want.cols() || got.hasNaN()) return INFINITY;
    return (got - want).cwiseAbs().maxCoeff();
}

model::ModelPtr loadCase(const std::string& name) { return io::loadGpt2Checkpoint((kGpt2Cases / name).string()); }

// Positions q of `ids` whose most-attended key in `weights` satisfies pick(q, key).
template <typename Pick>
double fractionOf(const Eigen::MatrixXf& weights, int from, int to, Pick pick) {
    int hits = 0;
    for (int q = from; q < to; ++q) {
        Eigen::Index key = 0;
        weights.row(q).maxCoeff(&key);
        hits += pick(q, static_cast<int>(key)) ? 1 : 0;
    }
    return double(hits) / (to - from);
}

}  // namespace

class Gpt2MatchesPyTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(Gpt2MatchesPyTorch, AttentionWithin1e5AndLogitsWithin1e4) {
    const fs::path dir = kGpt2Cases / GetParam();
    const auto spec = readJson(dir / "case.json");
    const model::ModelPtr m = loadCase(GetParam());
    EXPECT_EQ(m->dtype, spec["dtype"].get<std::string>());
    EXPECT_EQ(m->tiedOutput(), spec["tied"].get<bool>());
    const std::vector<int> ids = spec["ids"];
    EXPECT_EQ(m->tokenizer->encode(spec["text"].get<std::string>()), ids);

    model::ForwardOptions options;
    options.all_logits = true;
    const model::Trace trace = model::runModel(*m, ids, options);
    const double attention = maxAttentionDiff(trace, io::readNpy((dir / "expected_attention.npy").string()));
    const double logits = maxMatrixDiff(trace.logits, io::readNpy((dir / "expected_logits.npy").string()));
    std::printf("%s: max |attention - torch| = %.3g, max |logits - torch| = %.3g\n", GetParam().c_str(), attention,
                logits);
    EXPECT_LT(attention, 1e-5);
    EXPECT_LT(logits, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Cases, Gpt2MatchesPyTorch,
                         ::testing::Values("f32_prefix_tied", "f32_untied", "f16_tied_inner", "bf16_prefix_untied"));

TEST(Gpt2Forward, LastPositionLogitsEqualTheLastRowOfAllLogits) {
    const model::ModelPtr m = loadCase("f32_untied");
    const std::vector<int> ids = {1, 2, 3, 4};
    model::ForwardOptions all;
    all.all_logits = true;
    const model::Trace full = model::runModel(*m, ids, all);
    const model::Trace last = model::runModel(*m, ids);
    ASSERT_EQ(last.logits.rows(), 1);
    EXPECT_LT((full.logits.bottomRows(1) - last.logits).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(Gpt2Forward, AttentionOptionsPassThroughToEveryLayer) {
    const model::ModelPtr m = loadCase("f32_prefix_tied");
    const std::vector<int> ids = {0, 1, 2, 3, 4};
    const model::Trace base = model::runModel(*m, ids);
    // Causal by default: nothing above the diagonal.
    EXPECT_EQ(base.layers[1].attention.heads[1].weights.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(), 0.0f);

    model::ForwardOptions hot;
    hot.attention.temperature = 2.0;
    const model::Trace warm = model::runModel(*m, ids, hot);
    // Layer 0 sees the same input, so its logits are exactly halved.
    const Eigen::MatrixXf& a = base.layers[0].attention.heads[0].logits;
    const Eigen::MatrixXf& b = warm.layers[0].attention.heads[0].logits;
    for (int q = 0; q < 5; ++q)
        for (int k = 0; k <= q; ++k) EXPECT_NEAR(b(q, k), a(q, k) / 2, 1e-5);

    model::ForwardOptions padded;
    padded.attention.padded_keys = {0};
    const model::Trace p = model::runModel(*m, ids, padded);
    for (const auto& layer : p.layers)
        for (const auto& head : layer.attention.heads) EXPECT_EQ(head.weights.col(0).cwiseAbs().maxCoeff(), 0.0f);

    model::ForwardOptions open;
    open.attention.mask = MaskKind::None;
    const model::Trace o = model::runModel(*m, ids, open);
    EXPECT_GT(o.layers[0].attention.heads[0].weights(0, 4), 0.0f);
}

TEST(Gpt2Forward, RefusesEmptyTooLongAndUnknownInputsWithOneSentence) {
    const model::ModelPtr m = loadCase("f32_untied");
    EXPECT_THROW(model::runModel(*m, {}), std::invalid_argument);
    EXPECT_THROW(model::runModel(*m, std::vector<int>(17, 1)), std::invalid_argument);  // n_positions 16
    try {
        model::runModel(*m, {1, 12});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("token id 12"));
    }
}

TEST(Gpt2Forward, TopNextTokensAreSortedProbabilities) {
    const model::ModelPtr m = loadCase("f32_untied");
    const model::Trace trace = model::runModel(*m, {0, 1, 2});
    const auto next = model::topNextTokens(*m, trace, 20);
    ASSERT_EQ(next.size(), 12u);  // k is capped by the vocabulary
    double sum = 0;
    for (std::size_t i = 0; i < next.size(); ++i) {
        sum += next[i].probability;
        if (i) { EXPECT_GE(next[i - 1].probability, next[i].probability); }
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
    Eigen::Index best = 0;
    trace.logits.row(0).maxCoeff(&best);
    EXPECT_EQ(next[0].id, best);
    EXPECT_EQ(next[0].token, m->tokenizer->displayText(next[0].id));
}

TEST(Gpt2LayerAnalysis, HoldsTheLayersWeightsInputResultsAndSpectra) {
    const model::ModelPtr m = loadCase("f32_prefix_tied");
    const model::Trace trace = model::runModel(*m, {11, 10, 2, 10, 11});
    const Analysis a = model::layerAnalysis(*m, trace, 1);
    EXPECT_EQ(a.config.d_model, 8);
    EXPECT_EQ(a.config.heads, 2);
    EXPECT_EQ(a.config.headDimK(), 4);
    EXPECT_EQ(a.config.mask, MaskKind::Causal);
    EXPECT_EQ(a.config.text, "ab c ab");
    EXPECT_EQ(a.model_name, "GPT-2 f32_prefix_tied, layer 1 of 2");
    EXPECT_EQ(a.weights().W_Q, m->attentionWeights(1)->W_Q);
    EXPECT_EQ(a.weights().W_O, m->attentionWeights(1)->W_O);
    EXPECT_THAT(a.input.query.tokens, ElementsAre("ab", "\u2423", "c", "\u2423", "ab"));
    EXPECT_EQ(a.input.query.X, trace.layers[1].attention_input);
    EXPECT_EQ(a.results.heads[1].weights, trace.layers[1].attention.heads[1].weights);
    ASSERT_EQ(a.spectra.size(), 2u);
    ASSERT_EQ(a.logits.size(), 2u);
    EXPECT_EQ(a.spectra[0].qk.rank, 4);  // random W_Q, W_K: full rank d_k
    EXPECT_EQ(a.logits[0].rank, 4);      // min(n, d_k)
    EXPECT_EQ(a.cost.qk_factored_params, 2 * 8 * 4);
    EXPECT_EQ(a.nQuery(), 5);
    EXPECT_THROW(model::layerAnalysis(*m, trace, 2), std::invalid_argument);
}

TEST(NanoSort, PredictsZeroAndGreedilySortsTheDigits) {
    SKIP_WITHOUT_MODEL("nano-sort");
    const model::ModelPtr m = io::loadGpt2Checkpoint((kSharedModels / "nano-sort").string());
    const std::vector<int> ids = {2, 0, 1, 1, 0, 2};
    const model::Trace trace = model::runModel(*m, ids);
    const auto next = model::topNextTokens(*m, trace, 3);
    EXPECT_EQ(next[0].id, 0);
    EXPECT_EQ(next[0].token, "0");
    std::printf("nano-sort: P(next = 0) = %.4f\n", next[0].probability);
    EXPECT_THAT(model::greedyContinuation(*m, ids, 6), ElementsAre(0, 0, 1, 1, 2, 2));
}

TEST(Induction, LayerOneHeadsAttendToTheTokenAfterThePreviousOccurrence) {
    SKIP_WITHOUT_MODEL("induction");
    const model::ModelPtr m = io::loadGpt2Checkpoint((kSharedModels / "induction").string());
    const std::vector<int> ids = m->tokenizer->encode("qxvkzjwbpfmy qxvkzjwbpfmy qxvkzjwbpfmy");
    ASSERT_EQ(ids.size(), 38u);
    const model::Trace trace = model::runModel(*m, ids);
    const int from = 13, to = 38;  // the second and third copies
    const auto after_earlier_occurrence = [&](int q, int key) {
        for (int p = 0; p + 1 < q; ++p)
            if (ids[p] == ids[q] && key == p + 1) return true;
        return false;
    };
    for (int head : {1, 2}) {
        const double f = fractionOf(trace.layers[1].attention.heads[head].weights, from, to, after_earlier_occurrence);
        std::printf("induction layer 1 head %d: token after an earlier occurrence at %.0f%% of positions\n", head, 100 * f);
        EXPECT_GE(f, 0.99);
    }
    // The previous-token head, over every position that has a previous token (the README's ~76%).
    const double previous =
        fractionOf(trace.layers[0].attention.heads[0].weights, 1, to, [](int q, int key) { return key == q - 1; });
    std::printf("induction layer 0 head 0: previous token at %.1f%% of positions 1..37\n", 100 * previous);
    EXPECT_NEAR(previous, 0.76, 0.03);
}

// Issue 35: a layer's weight spectra are computed once, whatever the text, and equal those
// layerAnalysis computes without the cache.
TEST(WeightSpectraCache, ComputesEachLayerOnceForEveryText) {
    const model::ModelPtr m = loadCase("f32_prefix_tied");
    const model::WeightSpectraCache cache(m);
    const model::Trace first = model::runModel(*m, {11, 10, 2, 10, 11});
    const model::Trace second = model::runModel(*m, {2, 10, 11});
    const Analysis uncached = model::layerAnalysis(*m, first, 1);
    const Analysis a = model::layerAnalysis(first, 1, cache);
    EXPECT_EQ(cache.computed(), 1);
    const Analysis b = model::layerAnalysis(second, 1, cache);  // another text: the same weights
    EXPECT_EQ(cache.computed(), 1);
    EXPECT_EQ(cache.get(1, 0), cache.get(1, 0));
    ASSERT_EQ(a.spectra.size(), uncached.spectra.size());
    for (std::size_t head = 0; head < a.spectra.size(); ++head) {
        EXPECT_EQ(a.spectra[head].qk.singular_values, uncached.spectra[head].qk.singular_values);
        EXPECT_EQ(a.spectra[head].ov.singular_values, uncached.spectra[head].ov.singular_values);
        EXPECT_EQ(b.spectra[head].qk.singular_values, uncached.spectra[head].qk.singular_values);
    }
    EXPECT_EQ(b.logits.size(), 2u);  // the text's logits spectra are its own
    EXPECT_EQ(b.nQuery(), 3);
    model::layerAnalysis(first, 0, cache);
    EXPECT_EQ(cache.computed(), 2);  // another layer
    model::layerAnalysis(first, 0, cache, 1e-3);
    EXPECT_EQ(cache.computed(), 3);  // another rank tolerance
    EXPECT_THROW(cache.get(2, 0), std::invalid_argument);
}
