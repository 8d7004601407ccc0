// The config keys of the transformers reference folders (../shared/hf-reference, tests/data/hf_extra)
// that change the forward: the encoders' keys and inputs, ModernBERT's head size and local band, and
// the keys not understood, refused in one sentence. Skips, saying why, where ../shared is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "HfReferenceSupport.h"
#include "LoadError.h"
#include "io/Checkpoint.h"
#include "io/Safetensors.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using namespace headscope;
using namespace headscope::test_support::hf_reference;
using test_support::loadError;
using ::testing::HasSubstr;

// Encoders' keys and inputs: what changes the forward is understood or refused in one sentence; old
// folders' LayerNorm gamma/beta give the same numbers; a token type the model lacks is refused.
class EncoderKeys : public HfReference {};

TEST_P(EncoderKeys, RelativePositionsAndDecodersAreRefused) {
    if (GetParam() == "modernbert") GTEST_SKIP() << "no such keys";
    if (GetParam() != "distilbert") {
        EXPECT_THAT(loadError(editedCopy([](nlohmann::json& c) { c["position_embedding_type"] = "relative_key_query"; })),
                    HasSubstr("\"position_embedding_type\" 'relative_key_query' is not supported (absolute only)"));
        EXPECT_THAT(loadError(editedCopy([](nlohmann::json& c) { c["is_decoder"] = true; })),
                    HasSubstr("\"is_decoder\" is true: HeadScope opens this family as an encoder only"));
    }
    EXPECT_THAT(loadError(editedCopy([](nlohmann::json& c) { c["tie_word_embeddings"] = false; })),
                HasSubstr("config.json says tie_word_embeddings false but there is no"));
    if (GetParam() == "roberta") {  // its positions start past the padding id
        EXPECT_THAT(loadError(editedCopy([](nlohmann::json& c) { c["max_position_embeddings"] = 2; })),
                    HasSubstr("max_position_embeddings 2 leaves no position past the padding id 1"));
    }
}

TEST(ModernBertKeys, AnOddHeadSizeIsRefused) {
    const fs::path from = referenceFolder("modernbert");
    if (!fs::exists(from / "config.json")) GTEST_SKIP() << "../shared/hf-reference is absent";
    const fs::path dir = fs::temp_directory_path() / ("headscope_modernbert_odd_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    nlohmann::json config = nlohmann::json::parse(std::ifstream(from / "config.json"));
    config["hidden_size"] = 90;  // 6 heads of 15
    std::ofstream(dir / "config.json") << config.dump();
    EXPECT_THAT(loadError(dir), HasSubstr("the head size 15 is odd: rotary positions turn pairs"));
    fs::remove_all(dir);
}

TEST_P(EncoderKeys, OldLayerNormNamesGiveTheSameNumbers) {
    if (GetParam() == "modernbert") GTEST_SKIP() << "ModernBERT's folders name their norms weight";
    const fs::path folder = editedCopy([](nlohmann::json&) {});
    std::map<std::string, io::Tensor> renamed;
    for (auto& [name, tensor] : io::readSafetensors((referenceFolder(GetParam()) / "model.safetensors").string())) {
        std::string old = name;
        for (const auto& [from, to] : {std::pair{std::string("LayerNorm.weight"), std::string("LayerNorm.gamma")},
                                       std::pair{std::string("LayerNorm.bias"), std::string("LayerNorm.beta")}})
            if (old.size() > from.size() && old.compare(old.size() - from.size(), from.size(), from) == 0)
                old = old.substr(0, old.size() - from.size()) + to;
        renamed[old] = tensor;
    }
    fs::remove(folder / "model.safetensors");
    io::writeSafetensors((folder / "model.safetensors").string(), renamed);
    expectAgrees(GetParam() + " (gamma/beta)", compare(folder, referenceFolder(GetParam())), toleranceFor(GetParam()));
}

TEST_P(EncoderKeys, EveryQueryAttendsBothWaysAndATokenTypeTheModelLacksIsRefused) {
    const model::ModelPtr m = io::loadCheckpoint(referenceFolder(GetParam()).string());
    EXPECT_TRUE(m->config.encoder);
    EXPECT_THAT(model::describeArchitecture(*m), HasSubstr("encoder (attention in both directions, masked-LM head)"));
    model::ForwardOptions options;
    const model::Trace trace = model::runModel(*m, {5, 6, 7, 8}, options);
    EXPECT_GT(trace.layers[0].attention.heads[0].weights(0, 3), 0.0f) << "the first query sees the last key";
    EXPECT_EQ(trace.logits.rows(), 4) << "a masked token can be anywhere: every position's logits";
    options.token_types = {0, 0, 0, 7};
    try {
        model::runModel(*m, {5, 6, 7, 8}, options);
        ADD_FAILURE() << "token type 7 was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("token type 7 (position 3) is not one of this model's"));
    }
}

INSTANTIATE_TEST_SUITE_P(Encoders, EncoderKeys, ::testing::Values("bert", "roberta", "distilbert", "modernbert"));

TEST(ModernBertBand, LocalLayersSeeOnlyTheirBandBothWays) {
    const fs::path folder = referenceFolder("modernbert_pad");
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    ASSERT_EQ(m->config.sliding_window, 4);  // local_attention 8 / 2
    const model::Trace trace = model::runModel(*m, std::vector<int>(20, 5));
    for (int l = 0; l < 3; ++l)
        for (int q = 0; q < 20; ++q)
            for (int k = 0; k < 20; ++k)
                EXPECT_EQ(trace.layers[std::size_t(l)].attention.allowed(q, k), l == 0 || std::abs(q - k) <= 4) << l << q << k;
    EXPECT_THAT(model::describeArchitecture(*m), HasSubstr("local band |q - k| <= 4 on 2 of 3 layers"));
}

// ---- keys that change the forward: understood or refused in one sentence -------------------

class RefusedKeys : public HfReference {};

TEST_P(RefusedKeys, UnsupportedRopeTypeIsNamed) {
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        c["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"rope_theta", 10000.0}};
    });
    EXPECT_THAT(loadError(folder), HasSubstr("rope_type 'yarn' (in \"rope_parameters\") is not supported (supported: "
                                             "default, linear, llama3)"));
}

TEST_P(RefusedKeys, RotationPerLayerTypeIsRefusedWhereTheyDiffer) {
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        c["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 1e6}}},
                                {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 1e4}}}};
    });
    EXPECT_THAT(loadError(folder), HasSubstr("gives the layer types different rotations"));
}

INSTANTIATE_TEST_SUITE_P(RotaryFamilies, RefusedKeys,
                         ::testing::Values("llama_gqa", "qwen2_bias", "mistral_window", "neox_full_sequential", "qwen3",
                                           "smollm3", "olmo2", "gemma2"));

// Every rotary family: a key of the rotation it does not understand, a scaling it does not have,
// and (the Llama-like ones) a mixture-of-experts MLP, each refused in one sentence naming it.
class RefusedInEveryFamily : public HfReference {};

TEST_P(RefusedInEveryFamily, UnknownRopeKeyIsNamed) {
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        nlohmann::json& rope = c["rope_parameters"].contains("full_attention") ? c["rope_parameters"]["full_attention"]
                                                                                : c["rope_parameters"];
        rope["mrope_section"] = {16, 24, 24};
    });
    EXPECT_THAT(loadError(folder), HasSubstr("\"rope_parameters\" holds 'mrope_section', which is not understood"));
}

TEST_P(RefusedInEveryFamily, UnsupportedScalingIsNamed) {
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        c.erase("rope_parameters");
        c["rope_scaling"] = {{"type", "dynamic"}, {"factor", 2.0}};
    });
    EXPECT_THAT(loadError(folder), HasSubstr("rope_type 'dynamic' (in \"rope_scaling\") is not supported"));
}

TEST_P(RefusedInEveryFamily, MixtureOfExpertsIsNamed) {
    if (GetParam().rfind("neox", 0) == 0) GTEST_SKIP() << "GPT-NeoX has no such key";
    const fs::path folder = editedCopy([](nlohmann::json& c) { c["num_experts"] = 8; });
    EXPECT_THAT(loadError(folder), HasSubstr("\"num_experts\" is 8: mixture-of-experts MLPs are not supported"));
}

INSTANTIATE_TEST_SUITE_P(RotaryFamilies, RefusedInEveryFamily,
                         ::testing::Values("llama_gqa", "qwen2_bias", "mistral_window", "neox_full_sequential", "qwen3",
                                           "smollm3", "olmo2", "gemma2", "gemma3_text", "phi3"));

class RefusedGemmaKeys : public HfReference {};

TEST_P(RefusedGemmaKeys, BidirectionalAttentionIsNamed) {
    const fs::path folder = editedCopy([](nlohmann::json& c) { c["use_bidirectional_attention"] = true; });
    EXPECT_THAT(loadError(folder), HasSubstr("\"use_bidirectional_attention\" is true, which is not supported"));
}

TEST_P(RefusedGemmaKeys, SlidingLayersScaledRotationIsNamed) {
    if (GetParam() != "gemma3_text") GTEST_SKIP() << "one rotation for every layer";
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        c["rope_parameters"]["sliding_attention"] = {{"rope_type", "linear"}, {"factor", 8.0}, {"rope_theta", 1e4}};
    });
    EXPECT_THAT(loadError(folder), HasSubstr("the sliding layers' rope_type 'linear' is not supported"));
}

INSTANTIATE_TEST_SUITE_P(Gemma, RefusedGemmaKeys, ::testing::Values("gemma2", "gemma3_text"));

class RefusedLlamaKeys : public HfReference {};

TEST_P(RefusedLlamaKeys, PartialRotationOfAWholeHeadFamilyIsRefused) {
    const fs::path folder = editedCopy([](nlohmann::json& c) { c["rope_parameters"]["partial_rotary_factor"] = 0.5; });
    EXPECT_THAT(loadError(folder), HasSubstr("partial_rotary_factor 0.5 is not supported for this family"));
}

TEST_P(RefusedLlamaKeys, UnknownLayerTypeIsNamed) {
    const fs::path folder = editedCopy([](nlohmann::json& c) {
        c["model_type"] = "qwen2";
        c["layer_types"] = nlohmann::json::array();
        for (int l = 0; l < c["num_hidden_layers"].get<int>(); ++l) c["layer_types"].push_back("chunked_attention");
    });
    EXPECT_THAT(loadError(folder), HasSubstr("\"layer_types\" entry 0 is '\"chunked_attention\"' (supported: "
                                             "full_attention, sliding_attention)"));
}

INSTANTIATE_TEST_SUITE_P(LlamaFamilies, RefusedLlamaKeys, ::testing::Values("llama_gqa"));
