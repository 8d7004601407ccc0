// Checkpoints written by Hugging Face transformers 5.17 itself (../shared/hf-reference, its
// README): every layer's attention and every position's log-probabilities against
// transformers' own eager forward, with config.json as transformers 5 writes it
// (rope_parameters, layer_types, dtype) and rewritten in transformers 4's keys (rope_theta,
// rope_scaling, rotary_pct, torch_dtype); and Gemma 3's image-text folders. The keys refused are in
// test_hf_reference_keys, the positions in test_hf_reference_rope, the Hugging Face cache in
// test_hf_reference_hub_cache. Skips, saying why, where ../shared is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "HfReferenceSupport.h"
#include "LoadError.h"
#include "Npz.h"
#include "io/Checkpoint.h"
#include "io/Safetensors.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using namespace headscope;
using namespace headscope::test_support::hf_reference;
using test_support::loadError;
using ::testing::HasSubstr;

namespace {

// config.json in the keys transformers 4 wrote: rope_parameters spread into rope_theta,
// rope_scaling (its scaling keys, with "type" as older files have it) and partial_rotary_factor
// (GPT-NeoX: rotary_pct and rotary_emb_base; Gemma 3: the sliding layers' theta as
// rope_local_base_freq); dtype as torch_dtype; no layer_types (each family's default pattern).
void toTransformers4Keys(nlohmann::json& c) {
    if (c.contains("text_config")) toTransformers4Keys(c["text_config"]);              // Gemma 3's image-text folders
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
        if (rope.contains("partial_rotary_factor"))
            c[neox ? "rotary_pct" : "partial_rotary_factor"] = rope["partial_rotary_factor"];
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
