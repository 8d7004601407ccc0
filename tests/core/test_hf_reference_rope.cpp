// Positions in the transformers reference folders: a sliding window at any length, LongRoPE's
// frequencies and attention factor, SmolLM3's layers without RoPE. Skips, saying why, where
// ../shared is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "HfReferenceSupport.h"
#include "LoadError.h"
#include "io/Checkpoint.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using namespace headscope;
using namespace headscope::test_support::hf_reference;
using test_support::loadError;
using ::testing::HasSubstr;

// A sliding window at any length: Mistral's window of 8 over 32 tokens agrees with transformers
// above; here each layer's mask is the band, and Qwen2's layer_types slide only the layers they name.
TEST(SlidingWindow, QueriesSeeOnlyTheLastWindowOfKeys) {
    if (!fs::exists(kReference / "mistral_window/ref.npz")) GTEST_SKIP() << "../shared/hf-reference is absent";
    const model::ModelPtr m = io::loadCheckpoint((kReference / "mistral_window").string());
    ASSERT_EQ(m->config.sliding_window, 8);
    const model::Trace trace = model::runModel(*m, std::vector<int>(20, 3));
    for (const model::LayerTrace& layer : trace.layers)
        for (int q = 0; q < 20; ++q)
            for (int k = 0; k < 20; ++k) {
                EXPECT_EQ(layer.attention.allowed(q, k), k <= q && k > q - 8) << q << ", " << k;
                if (k <= q - 8) {
                    EXPECT_EQ(layer.attention.heads[0].weights(q, k), 0.0f);
                }
            }
}

// ---- LongRoPE (Phi-3.5, Phi-4-mini): no transformers reference here, so the closed form of
// _compute_longrope_parameters: theta_p = 1 / (ext_p * base^(2p / d)) in float, ext the short factors
// up to the original context and the long ones past it, cos and sin times sqrt(1 + ln(factor) / ln(original)).

class LongRope : public HfReference {};

TEST_P(LongRope, FrequenciesAndAttentionFactorFollowTheClosedForm) {
    std::vector<double> short_factor, long_factor;
    for (int p = 0; p < 8; ++p) {  // phi3: head_dim 16, 8 pairs
        short_factor.push_back(1.0 + 0.05 * p);
        long_factor.push_back(2.0 + 0.5 * p);
    }
    const fs::path folder = editedCopy([&](nlohmann::json& c) {
        c["max_position_embeddings"] = 256;
        c["rope_parameters"] = {{"rope_type", "longrope"}, {"rope_theta", 10000.0}, {"short_factor", short_factor},
                                {"long_factor", long_factor}, {"original_max_position_embeddings", 16}};
    });
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    const float expected_scaling = static_cast<float>(std::sqrt(1 + std::log(256.0 / 16) / std::log(16.0)));
    EXPECT_FLOAT_EQ(m->config.rope_attention_scaling, expected_scaling);
    for (int p = 0; p < 8; ++p) {
        const float power = std::pow(10000.0f, float(2 * p) / 16.0f);
        EXPECT_FLOAT_EQ(m->inverse_frequencies(p), 1.0f / (float(short_factor[p]) * power)) << p;
        EXPECT_FLOAT_EQ(m->long_inverse_frequencies(p), 1.0f / (float(long_factor[p]) * power)) << p;
    }
    const auto layer0 = [&](int n) {
        return model::layerAnalysis(*m, model::runModel(*m, std::vector<int>(std::size_t(n), 5)), 0).rotary;
    };
    EXPECT_TRUE(layer0(16).inverse_frequencies.isApprox(m->inverse_frequencies));       // the original context: short
    EXPECT_TRUE(layer0(17).inverse_frequencies.isApprox(m->long_inverse_frequencies));  // past it: long, for every position
    EXPECT_FLOAT_EQ(layer0(17).attention_scaling, expected_scaling);
    // A factor list that does not fit the rotated pairs is refused.
    const fs::path bad = editedCopy([&](nlohmann::json& c) {
        c["rope_parameters"] = {{"rope_type", "su"}, {"short_factor", {1.0, 2.0}}, {"long_factor", long_factor}};
    });
    EXPECT_THAT(loadError(bad), HasSubstr("longrope's short_factor and long_factor hold 2 and 8 numbers"));
    // An original context of 1 divides by ln 1 = 0 (transformers raises ZeroDivisionError): refused.
    const fs::path one = editedCopy([&](nlohmann::json& c) {
        c["rope_parameters"] = {{"rope_type", "longrope"}, {"short_factor", short_factor}, {"long_factor", long_factor},
                                {"original_max_position_embeddings", 1}};
    });
    EXPECT_THAT(loadError(one), HasSubstr("original_max_position_embeddings 1 leaves longrope's attention factor undefined"));
}

INSTANTIATE_TEST_SUITE_P(Phi3, LongRope, ::testing::Values("phi3"));

// ---- SmolLM3's NoPE layers: the listed layers do not rotate, the others do.
class NoRope : public HfReference {};

TEST_P(NoRope, LayersWithoutRopeLeaveQAndKUnrotated) {
    const fs::path folder = editedCopy([](nlohmann::json& c) { c["no_rope_layers"] = {1, 0, 1}; });
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    const model::Trace trace = model::runModel(*m, {3, 1, 4, 1, 5, 9});
    EXPECT_TRUE(model::layerAnalysis(*m, trace, 0).rotary.enabled());
    const Analysis nope = model::layerAnalysis(*m, trace, 1);
    EXPECT_FALSE(nope.rotary.enabled());
    EXPECT_TRUE(nope.no_rotation);
    // Unrotated: Q is the attention input times W_Q (no bias in SmolLM3), row for row.
    const Eigen::MatrixXf q = nope.input.query.X * nope.weights().W_Q;
    EXPECT_LT((q - nope.results.Q).cwiseAbs().maxCoeff(), 1e-4f);
    EXPECT_GT((model::layerAnalysis(*m, trace, 0).input.query.X * model::layerAnalysis(*m, trace, 0).weights().W_Q -
               trace.layers[0].attention.Q).cwiseAbs().maxCoeff(), 1e-2f);  // layer 0 rotates
    EXPECT_THAT(model::describeArchitecture(*m), HasSubstr("1 layer without RoPE"));
}

INSTANTIATE_TEST_SUITE_P(SmolLM3, NoRope, ::testing::Values("smollm3"));
