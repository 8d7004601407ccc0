// Checkpoints written by Hugging Face transformers 5.17 itself (../shared/hf-reference, its
// README): every layer's attention and every position's log-probabilities against
// transformers' own eager forward, with config.json as transformers 5 writes it
// (rope_parameters, layer_types, dtype) and rewritten in transformers 4's keys (rope_theta,
// rope_scaling, rotary_pct, torch_dtype); and the config keys that change the forward but are
// not understood, refused in one sentence. Skips, saying why, where ../shared is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "Npz.h"
#include "LoadError.h"
#include "TempDirTest.h"
#include "io/Checkpoint.h"
#include "io/HubCache.h"
#include "io/IoError.h"
#include "io/Safetensors.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using namespace headscope;
using ::testing::HasSubstr;

namespace {

const fs::path kReference = fs::path(HEADSCOPE_SHARED_MODELS_DIR).parent_path() / "hf-reference";
// Written the same way, for what ../shared/hf-reference lacks (tests/data/make_hf_extra_reference.py):
// NoPE layers, LongRoPE short and long, Phi-3's partial rotation, Qwen2's per-layer window, a Gemma 3
// image-text folder's text tower. In the project, so these run where ../shared is absent.
const fs::path kExtra = fs::path(HEADSCOPE_TEST_DATA_DIR) / "hf_extra";
fs::path referenceFolder(const std::string& name) { return fs::exists(kExtra / name) ? kExtra / name : kReference / name; }

// Float32 forward passes agree to rounding; measured maxima are printed. Layer 0's attention, which
// no earlier layer's rounding reaches, within 2e-6 (measured 3e-7 to 1.5e-6) in every family; over
// every layer, attention (in [0, 1]) within 1e-5 and log-probabilities within 3e-5 (measured at most
// 5.7e-6 and 2.3e-5). Gemma 2 within 4e-6, 2e-5 and 1e-4: its embeddings times sqrt(d_model) and
// scores up to 33 before the softcap carry each float's rounding further (layer 0 measured 1.4e-6
// built for AVX-512 on an Intel Xeon, 2.2e-6 for AVX2 on an AMD EPYC; every layer 1.1e-5 and 5.9e-5).
struct Tolerance {
    double first_layer, attention, log_probs;
};
Tolerance toleranceFor(const std::string& folder) {
    return folder.rfind("gemma2", 0) == 0 ? Tolerance{4e-6, 2e-5, 1e-4} : Tolerance{2e-6, 1e-5, 3e-5};
}

struct Compared {
    double attention = INFINITY, log_probs = INFINITY;
    double first_layer = INFINITY;  // attention of layer 0, before any earlier layer's rounding adds up
};

// Row-wise log-softmax in double. (n, vocab) -> (n, vocab)
Eigen::MatrixXd logSoftmax(const Eigen::MatrixXf& logits) {
    Eigen::MatrixXd x = logits.cast<double>();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double top = x.row(r).maxCoeff();
        const double sum = (x.row(r).array() - top).exp().sum();
        x.row(r).array() -= top + std::log(sum);
    }
    return x;
}

// The reference's input: its ids, and the encoder cases' token types (a sentence pair) and padding
// (attention_mask 0).
struct ReferenceInput {
    std::vector<int> ids;
    model::ForwardOptions options;
};
ReferenceInput referenceInput(const std::map<std::string, io::Tensor>& ref) {
    ReferenceInput input;
    for (float id : ref.at("ids").data) input.ids.push_back(static_cast<int>(id));
    input.options.all_logits = true;
    if (ref.count("token_type_ids"))
        for (float t : ref.at("token_type_ids").data) input.options.token_types.push_back(static_cast<int>(t));
    if (ref.count("attention_mask")) {
        const std::vector<float>& mask = ref.at("attention_mask").data;
        for (std::size_t k = 0; k < mask.size(); ++k)
            if (mask[k] == 0) input.options.attention.padded_keys.push_back(static_cast<int>(k));
    }
    return input;
}

Compared compare(const fs::path& folder, const fs::path& reference_folder) {
    const auto ref = test_support::readNpz(reference_folder / "ref.npz");
    const ReferenceInput input = referenceInput(ref);
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    const model::Trace trace = model::runModel(*m, input.ids, input.options);
    Compared c{0, 0};
    const std::int64_t n = trace.n();
    for (std::size_t l = 0; l < trace.layers.size(); ++l) {
        const io::Tensor& expected = ref.at("att" + std::to_string(l));
        const auto& heads = trace.layers[l].attention.heads;
        if (expected.shape != std::vector<std::int64_t>{std::int64_t(heads.size()), n, n}) return {};
        for (std::size_t h = 0; h < heads.size(); ++h)
            for (std::int64_t q = 0; q < n; ++q)
                for (std::int64_t k = 0; k < n; ++k) {
                    const float got = heads[h].weights(q, k);
                    if (!std::isfinite(got)) return {};
                    c.attention = std::max(c.attention, double(std::abs(expected.data[(h * n + q) * n + k] - got)));
                }
        if (l == 0) c.first_layer = c.attention;
    }
    if (ref.count("att" + std::to_string(trace.layers.size()))) return {};  // a layer left out
    const Eigen::MatrixXd want = logSoftmax(io::toMatrix(ref.at("logits")));
    const Eigen::MatrixXd got = logSoftmax(trace.logits);
    if (got.rows() != want.rows() || got.cols() != want.cols() || got.hasNaN()) return {};
    c.log_probs = (got - want).cwiseAbs().maxCoeff();
    return c;
}

// config.json in the keys transformers 4 wrote: rope_parameters spread into rope_theta,
// rope_scaling (its scaling keys, with "type" as older files have it) and partial_rotary_factor
// (GPT-NeoX: rotary_pct and rotary_emb_base; Gemma 3: the sliding layers' theta as
// rope_local_base_freq); dtype as torch_dtype; no layer_types (each family's default pattern).
void toTransformers4Keys(nlohmann::json& c) {
    if (c.contains("text_config")) toTransformers4Keys(c["text_config"]);  // Gemma 3's image-text folders
    if (c.value("model_type", "") == "modernbert" && c.contains("rope_parameters")) {  // one theta per layer type
        c["global_rope_theta"] = c["rope_parameters"]["full_attention"]["rope_theta"];
        c["local_rope_theta"] = c["rope_parameters"]["sliding_attention"]["rope_theta"];
        c.erase("rope_parameters");
    }
    if (c.contains("rope_parameters") && c["rope_parameters"].contains("sliding_attention")) {  // Gemma 3
        c["rope_local_base_freq"] = c["rope_parameters"]["sliding_attention"]["rope_theta"];
        c["rope_parameters"] = c["rope_parameters"]["full_attention"];
    }
    if (c.contains("rope_parameters")) {
        nlohmann::json rope = c["rope_parameters"];
        c.erase("rope_parameters");
        const bool neox = c["model_type"] == "gpt_neox";
        if (rope.contains("rope_theta")) c[neox ? "rotary_emb_base" : "rope_theta"] = rope["rope_theta"];
        if (rope.contains("partial_rotary_factor")) c[neox ? "rotary_pct" : "partial_rotary_factor"] = rope["partial_rotary_factor"];
        rope.erase("rope_theta");
        rope.erase("partial_rotary_factor");
        if (rope.value("rope_type", "default") != "default") {
            rope["type"] = rope["rope_type"];
            rope.erase("rope_type");
            c["rope_scaling"] = rope;
        }
    }
    if (c.contains("dtype")) {
        c["torch_dtype"] = c["dtype"];
        c.erase("dtype");
    }
    c.erase("layer_types");
}

class HfReference : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (!fs::exists(referenceFolder(GetParam()) / "ref.npz"))
            GTEST_SKIP() << "the transformers reference " << (referenceFolder(GetParam())) << " is absent (it lives beside "
                         << "the project in ../shared/hf-reference, never in it)";
        static int counter = 0;
        dir_ = fs::temp_directory_path() / ("headscope_hf_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    // The reference folder with its config.json edited; the weights are linked, not copied.
    // A new folder each call.
    fs::path editedCopy(const std::function<void(nlohmann::json&)>& edit) {
        const fs::path from = referenceFolder(GetParam()), to = dir_ / ("copy" + std::to_string(copies_++));
        fs::create_directories(to);
        for (const auto& entry : fs::directory_iterator(from))
            if (entry.path().filename() != "config.json" && entry.path().filename() != "ref.npz")
                fs::create_symlink(fs::absolute(entry.path()), to / entry.path().filename());
        nlohmann::json config = nlohmann::json::parse(std::ifstream(from / "config.json"));
        edit(config);
        std::ofstream(to / "config.json") << config.dump(2);
        return to;
    }
    fs::path dir_;
    int copies_ = 0;
};

void expectAgrees(const std::string& what, const Compared& c, const Tolerance& tolerance) {
    std::printf("%s: max |attention - transformers| %.2e (layer 0: %.2e), max |log p - transformers| %.2e\n",
                what.c_str(), c.attention, c.first_layer, c.log_probs);
    EXPECT_LE(c.first_layer, tolerance.first_layer) << what;
    EXPECT_LE(c.attention, tolerance.attention) << what;
    EXPECT_LE(c.log_probs, tolerance.log_probs) << what;
}

using test_support::loadError;

}  // namespace

TEST_P(HfReference, AsTransformers5WroteIt) {
    expectAgrees(GetParam() + " (transformers 5 keys)", compare(referenceFolder(GetParam()), referenceFolder(GetParam())),
                 toleranceFor(GetParam()));
}

TEST_P(HfReference, InTransformers4Keys) {
    const fs::path folder = editedCopy(toTransformers4Keys);
    expectAgrees(GetParam() + " (transformers 4 keys)", compare(folder, referenceFolder(GetParam())), toleranceFor(GetParam()));
}

TEST_P(HfReference, ReadsTheStoredDtypeInBothForms) {
    const std::string written = nlohmann::json::parse(std::ifstream(referenceFolder(GetParam()) / "config.json"))["dtype"];
    EXPECT_THAT(written, ::testing::AnyOf("float32", "bfloat16", "float16"));
    EXPECT_EQ(io::loadCheckpoint((referenceFolder(GetParam())).string())->config.stored_dtype, written);
    EXPECT_EQ(io::loadCheckpoint(editedCopy(toTransformers4Keys).string())->config.stored_dtype, written);
}

// A long input's layer keeps only its weights (issue 35 item 4): its logits computed again from the
// analysis' own options give the forward's, bit for bit, in every family (softcaps, windows, query
// scalars, padding, normalised q and k).
TEST_P(HfReference, ALayerThatKeptOnlyItsWeightsGivesItsLogitsAgainBitForBit) {
    const ReferenceInput input = referenceInput(test_support::readNpz(referenceFolder(GetParam()) / "ref.npz"));
    const model::ModelPtr m = io::loadCheckpoint(referenceFolder(GetParam()).string());
    const model::Trace kept = model::runModel(*m, input.ids, input.options);
    model::ForwardOptions long_input = input.options;
    long_input.keep_maps = false;
    const model::Trace dropped = model::runModel(*m, input.ids, long_input);
    for (int l = 0; l < int(kept.layers.size()); ++l) {
        const Analysis analysis = model::layerAnalysis(*m, dropped, l);
        const std::vector<HeadResult>& heads = kept.layers[std::size_t(l)].attention.heads;
        ASSERT_EQ(analysis.results.heads.size(), heads.size());
        for (int h = 0; h < int(heads.size()); ++h) {
            ASSERT_EQ(analysis.results.heads[std::size_t(h)].logits.size(), 0) << "layer " << l << " head " << h;
            EXPECT_EQ(*analysis.headLogits(h), heads[std::size_t(h)].logits) << "layer " << l << " head " << h;
        }
    }
}

// No tokenizer in these folders (save_pretrained of a model alone): the text is the ids, and
// the ids are the labels.
TEST_P(HfReference, OpensWithoutATokenizerAndLabelsTokensByTheirIds) {
    const model::ModelPtr m = io::loadCheckpoint((referenceFolder(GetParam())).string());
    EXPECT_FALSE(m->tokenizer->encodesText());
    EXPECT_EQ(m->tokenizer->displayText(17), "17");
    EXPECT_EQ(m->tokenizer->encode("17 4, 9"), (std::vector<int>{17, 4, 9}));
    EXPECT_EQ(m->tokenizer->decode({17, 4, 9}), "17 4 9");
    try {
        m->tokenizer->encode("hello");
        ADD_FAILURE() << "text was encoded without a tokenizer";
    } catch (const text::TokenizerError& e) {
        EXPECT_THAT(e.what(), HasSubstr("give token ids instead of text"));
    }
}

INSTANTIATE_TEST_SUITE_P(Families, HfReference,
                         ::testing::Values("llama_gqa", "llama_head_dim", "llama3_scaled", "llama_bf16", "llama_f16",
                                           "llama_shards", "qwen2_bias", "mistral_window", "neox_partial_parallel",
                                           "neox_full_sequential", "gpt2", "qwen3", "smollm3", "olmo2", "gemma2",
                                           "gemma2_softcap", "gemma3_text", "gemma3_pattern", "phi3"));
// Encoders (issue 34): attention in both directions, post-norm blocks, token types, RoBERTa's
// positions past its padding id, ModernBERT's local band; the masked-LM head's logits at every position.
// In the project: a sentence pair with padding, padded RoBERTa, DistilBERT and ModernBERT past its band.
INSTANTIATE_TEST_SUITE_P(Encoders, HfReference, ::testing::Values("bert", "roberta", "distilbert", "modernbert"));
INSTANTIATE_TEST_SUITE_P(EncodersInTheProject, HfReference,
                         ::testing::Values("bert_pair", "roberta_pad", "distilbert_pad", "modernbert_pad"));
INSTANTIATE_TEST_SUITE_P(InTheProject, HfReference,
                         ::testing::Values("smollm3_nope", "phi3_longrope_short", "phi3_longrope_long", "phi3_partial",
                                           "qwen2_window", "gemma3_multimodal"));

// Gemma 3's image-text folders: the text tower, under language_model.model. as transformers 4
// wrote it (above) or model.language_model. as 5 re-saves it; a config without its text_config is refused.
class Gemma3ImageText : public HfReference {};

TEST_P(Gemma3ImageText, OpensTheTextTowerUnderEitherPrefix) {
    const fs::path folder = editedCopy([](nlohmann::json&) {});
    std::map<std::string, io::Tensor> renamed;
    const std::string old_prefix = "language_model.model.";
    for (auto& [name, tensor] : io::readSafetensors((referenceFolder(GetParam()) / "model.safetensors").string()))
        renamed[name.rfind(old_prefix, 0) == 0 ? "model.language_model." + name.substr(old_prefix.size()) : name] = tensor;
    ASSERT_TRUE(renamed.count("model.language_model.embed_tokens.weight"));
    fs::remove(folder / "model.safetensors");
    io::writeSafetensors((folder / "model.safetensors").string(), renamed);
    expectAgrees(GetParam() + " (model.language_model.)", compare(folder, referenceFolder(GetParam())), toleranceFor(GetParam()));
    EXPECT_EQ(io::loadCheckpoint(folder.string())->config.family, "gemma3_text");
}

TEST_P(Gemma3ImageText, AConfigWithoutItsTextConfigIsRefused) {
    const fs::path folder = editedCopy([](nlohmann::json& c) { c.erase("text_config"); });
    EXPECT_THAT(loadError(folder), HasSubstr("a Gemma 3 image-text config (model_type \"gemma3\") needs its \"text_config\""));
}

INSTANTIATE_TEST_SUITE_P(InTheProject, Gemma3ImageText, ::testing::Values("gemma3_multimodal"));

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

// ---- a repo id in the Hugging Face cache (huggingface_hub's layout, files as symbolic links) --

namespace {

// A cache under `root` holding `repo_id` at refs/main = commit, its files links into blobs/.
void makeCache(const fs::path& root, const std::string& repo_id, const fs::path& folder, const std::string& commit) {
    std::string name = "models--" + repo_id;
    name.replace(name.find('/'), 1, "--");
    const fs::path repo = root / name;
    fs::create_directories(repo / "refs");
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / commit);
    std::ofstream(repo / "refs" / "main") << commit;
    int blob = 0;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().filename() == "ref.npz") continue;
        const std::string hash = "blob" + std::to_string(blob++);
        fs::copy_file(entry.path(), repo / "blobs" / hash);
        fs::create_symlink(fs::path("../../blobs") / hash, repo / "snapshots" / commit / entry.path().filename());
    }
}

class HubCacheTest : public TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        if (!fs::exists(kReference / "qwen3/ref.npz")) GTEST_SKIP() << "../shared/hf-reference is absent";
        const char* old = std::getenv("HF_HUB_CACHE");
        saved_ = old ? old : "";
        had_ = old != nullptr;
        ::setenv("HF_HUB_CACHE", dir_.c_str(), 1);
    }
    void TearDown() override {
        if (had_) {
            ::setenv("HF_HUB_CACHE", saved_.c_str(), 1);
        } else {
            ::unsetenv("HF_HUB_CACHE");
        }
        TempDirTest::TearDown();
    }
    std::string saved_;
    bool had_ = false;
};

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

}  // namespace

TEST_F(HubCacheTest, RepoIdOpensItsSnapshotAndGivesTransformersNumbers) {
    makeCache(dir_, "Qwen/Qwen3-tiny", kReference / "qwen3", kCommit);
    EXPECT_EQ(io::resolveModelPath("Qwen/Qwen3-tiny"), (dir_ / "models--Qwen--Qwen3-tiny/snapshots" / kCommit).string());
    EXPECT_EQ(io::resolveModelPath("Qwen/Qwen3-tiny", kCommit), io::resolveModelPath("Qwen/Qwen3-tiny"));
    expectAgrees("Qwen/Qwen3-tiny from the cache", compare("Qwen/Qwen3-tiny", kReference / "qwen3"), toleranceFor("qwen3"));
    const model::ModelPtr m = io::loadCheckpoint("Qwen/Qwen3-tiny");
    EXPECT_EQ(model::layerAnalysis(*m, model::runModel(*m, {1, 2, 3}), 0).model_name, "Qwen3 Qwen/Qwen3-tiny, layer 0 of 3");
    const std::vector<io::CachedModel> listed = io::cachedModels();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].repo_id, "Qwen/Qwen3-tiny");
    EXPECT_EQ(listed[0].model_type, "qwen3");
    EXPECT_EQ(listed[0].dtype, "float32");
    EXPECT_GT(listed[0].bytes, double(fs::file_size(kReference / "qwen3/model.safetensors")));
}

TEST_F(HubCacheTest, MissingRepoOrRevisionSaysWhereItLooked) {
    makeCache(dir_, "Qwen/Qwen3-tiny", kReference / "qwen3", kCommit);
    EXPECT_THAT(loadError("google/gemma-3-1b-it"),
                HasSubstr("is neither a folder nor a model in the Hugging Face cache (looked in '" +
                          (dir_ / "models--google--gemma-3-1b-it").string() + "'"));
    try {
        io::resolveModelPath("Qwen/Qwen3-tiny", "v2");
        ADD_FAILURE() << "an absent revision resolved";
    } catch (const io::IoError& e) {
        EXPECT_THAT(e.what(), HasSubstr("at revision 'v2': the Hugging Face cache has no"));
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
