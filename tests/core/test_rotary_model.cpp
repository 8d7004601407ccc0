// The rotary families (Llama, Qwen2, GPT-NeoX) through io::loadCheckpoint and runModel:
// every layer's attention and the last position's logits against a PyTorch forward pass
// written from the Hugging Face modeling code (tests/data/make_rotary_reference.py), on the
// two trained checkpoints in ../shared/models and on small random ones here (Qwen2 biases,
// tied embeddings, explicit head_dim, Llama 3 rope scaling, F16, BF16, shards, sequential
// NeoX); what the trained checkpoints' READMEs say a correct forward pass shows; and one
// clear message for each folder that cannot be opened.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "LoadError.h"
#include "TempDirTest.h"
#include "io/Checkpoint.h"
#include "io/IoError.h"
#include "io/Npy.h"
#include "model/Forward.h"
#include "model/WeightSpectra.h"
#include "RotaryCircuits.h"
#include "ScoreBreakdown.h"
#include "Engine.h"
#include "common/AttentionDiff.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using namespace headscope;
using test::kRotaryCases;
using test::kSharedModels;
using test::maxAttentionDiff;
using ::testing::HasSubstr;

namespace {


// Float32 forward passes of a few layers agree to rounding: attention weights (in [0, 1])
// within 1e-5, logits (|logit| up to ~20) within 2e-5. Measured maxima (printed): attention
// 2e-6 to 5e-6, logits 2e-6 to 7e-6.
constexpr double kAttentionTolerance = 1e-5;
constexpr double kLogitTolerance = 2e-5;

std::vector<int> caseIds(const fs::path& folder) {
    std::ifstream in(folder / "case.json");
    return nlohmann::json::parse(in)["ids"].get<std::vector<int>>();
}

double maxLogitDiff(const model::Trace& trace, const io::Tensor& expected) {
    const Eigen::MatrixXf want = io::toMatrix(expected);
    const Eigen::MatrixXf got = trace.logits.bottomRows(1);
    if (got.cols() != want.cols() || got.hasNaN()) return INFINITY;
    return (got - want).cwiseAbs().maxCoeff();
}

struct Compared {
    double attention, logits;
};

Compared compare(const model::Model& m, const fs::path& reference) {
    const model::Trace trace = model::runModel(m, caseIds(reference));
    return {maxAttentionDiff(trace, io::readNpy((reference / "expected_attention.npy").string())),
            maxLogitDiff(trace, io::readNpy((reference / "expected_logits.npy").string()))};
}

using test_support::loadError;

}  // namespace

// ---- the trained checkpoints ---------------------------------------------------------------

class TrainedRotaryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainedRotaryModel, MatchesThePyTorchReferenceInEveryLayer) {
    const std::string name = GetParam();
    if (!fs::exists(kSharedModels / name / "model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint " << (kSharedModels / name)
                     << " is absent (it lives beside the project in "
                     << "../shared/models, never in it)";
    const model::ModelPtr m = io::loadCheckpoint((kSharedModels / name).string());
    const Compared c = compare(*m, kRotaryCases / name);
    std::printf("%s: max |attention - reference| %.2e, max |logit - reference| %.2e\n", name.c_str(), c.attention,
                c.logits);
    EXPECT_LE(c.attention, kAttentionTolerance);
    EXPECT_LE(c.logits, kLogitTolerance);
}

INSTANTIATE_TEST_SUITE_P(Shared, TrainedRotaryModel, ::testing::Values("llama-induction", "neox-induction"));

namespace {

// From the third copy of the 11-symbol string on (positions `first`..n-1): the fraction of
// positions where `head` of `layer` attends most to the token right after an earlier
// occurrence of the current token, and where the prediction is the next token.
struct Induction {
    double attention, prediction;
};
Induction induction(const model::Trace& trace, int layer, int head, int first) {
    const Eigen::MatrixXf& w = trace.layers[layer].attention.heads[head].weights;
    int attended = 0, predicted = 0, count = 0;
    for (int q = first; q < trace.n(); ++q, ++count) {
        Eigen::Index key = 0, next = 0;
        w.row(q).maxCoeff(&key);
        attended += key >= 1 && key <= q && trace.ids[key - 1] == trace.ids[q] ? 1 : 0;
        if (q + 1 < trace.n()) {
            trace.logits.row(q).maxCoeff(&next);
            predicted += next == trace.ids[q + 1] ? 1 : 0;
        } else {
            predicted += 1;  // nothing to predict after the last token
        }
    }
    return {double(attended) / count, double(predicted) / count};
}

}  // namespace

TEST(TrainedRotaryModel, LlamaHasAnInductionHeadAndPredictsFromTheThirdCopy) {
    if (!fs::exists(kSharedModels / "llama-induction/model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint ../shared/models/llama-induction is absent";
    const model::ModelPtr m = io::loadCheckpoint((kSharedModels / "llama-induction").string());
    model::ForwardOptions options;
    options.all_logits = true;
    const model::Trace trace = model::runModel(*m, caseIds(kRotaryCases / "llama-induction"), options);
    // <s> then five copies: the third copy starts at 1 + 2 * 11.
    const Induction layer1_head2 = induction(trace, 1, 2, 1 + 22);
    EXPECT_EQ(layer1_head2.attention, 1.0);
    EXPECT_EQ(layer1_head2.prediction, 1.0);
}

TEST(TrainedRotaryModel, NeoxHasPreviousTokenAndInductionHeads) {
    if (!fs::exists(kSharedModels / "neox-induction/model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint ../shared/models/neox-induction is absent";
    const model::ModelPtr m = io::loadCheckpoint((kSharedModels / "neox-induction").string());
    model::ForwardOptions options;
    options.all_logits = true;
    const model::Trace trace = model::runModel(*m, caseIds(kRotaryCases / "neox-induction"), options);
    // Layer 0 head 2 attends to the previous token at every position after the first.
    const Eigen::MatrixXf& previous = trace.layers[0].attention.heads[2].weights;
    for (int q = 1; q < trace.n(); ++q) {
        Eigen::Index key = 0;
        previous.row(q).maxCoeff(&key);
        EXPECT_EQ(key, q - 1) << "position " << q;
    }
    // Layer 1 heads 0 and 1 are induction heads. Head 0 is at every position of the third
    // copy on; head 1 at all but one on this string: at position 33 (the fourth copy's first
    // token) it prefers the very first token, 0.338 against 0.322, in the PyTorch reference too.
    const Induction head0 = induction(trace, 1, 0, 22), head1 = induction(trace, 1, 1, 22);
    EXPECT_EQ(head0.attention, 1.0);
    EXPECT_GE(head1.attention, 32.0 / 33.0);
    EXPECT_EQ(head0.prediction, 1.0);  // the prediction is right at every position from the third copy on
}

// ---- small random checkpoints: every layout detail ------------------------------------------

class RandomRotaryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomRotaryModel, MatchesThePyTorchReferenceInEveryLayer) {
    const fs::path folder = kRotaryCases / GetParam();
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    const Compared c = compare(*m, folder);
    std::printf("%s: max |attention - reference| %.2e, max |logit - reference| %.2e\n", GetParam().c_str(), c.attention,
                c.logits);
    EXPECT_LE(c.attention, kAttentionTolerance);
    EXPECT_LE(c.logits, kLogitTolerance);
}

INSTANTIATE_TEST_SUITE_P(Layouts, RandomRotaryModel,
                         ::testing::Values("qwen2_tied", "qwen2_tied_bf16", "qwen2_tied_sharded", "llama3_scaled",
                                           "neox_sequential"));

TEST(RandomRotaryModel, ReadsTheArchitectureFromConfigJson) {
    const model::ModelPtr qwen =
        io::loadCheckpoint((kRotaryCases / "qwen2_tied/config.json").string());  // config.json works too
    EXPECT_EQ(qwen->config.familyName(), "Qwen2");
    EXPECT_EQ(qwen->config.kvHeads(), 2);
    EXPECT_EQ(qwen->config.headDim(), 8);
    EXPECT_TRUE(qwen->tiedOutput());
    EXPECT_TRUE(qwen->blocks[0].attention.hasBias());
    EXPECT_EQ(qwen->attentionWeights(0)->b_O.cwiseAbs().maxCoeff(), 0.0f);  // Qwen2 has no o_proj bias
    EXPECT_EQ(qwen->dtype, "F32");
    const model::ModelPtr bf16 = io::loadCheckpoint((kRotaryCases / "qwen2_tied_bf16").string());
    EXPECT_EQ(bf16->dtype, "BF16");
    EXPECT_EQ(bf16->parameterCount(), qwen->parameterCount());
    const model::ModelPtr neox = io::loadCheckpoint((kRotaryCases / "neox_sequential").string());
    EXPECT_EQ(neox->config.rotary_dims, 4);
    EXPECT_FALSE(neox->config.parallel_residual);
    EXPECT_EQ(neox->inverse_frequencies.size(), 2);
}

TEST(RandomRotaryModel, Bf16AndShardedCopiesGiveTheF32Attention) {
    // BF16 keeps 8 bits of mantissa: weights move by up to 2^-9 relative, which moves the
    // attention weights of this random 2-layer model (weights ~ N(0, 0.4^2), sharp softmaxes)
    // by up to 3e-2 (measured, printed). Shards change nothing: exactly equal.
    constexpr double kBf16Tolerance = 5e-2;
    const std::vector<int> ids = caseIds(kRotaryCases / "qwen2_tied");
    const model::Trace f32 = model::runModel(*io::loadCheckpoint((kRotaryCases / "qwen2_tied").string()), ids);
    const model::Trace bf16 = model::runModel(*io::loadCheckpoint((kRotaryCases / "qwen2_tied_bf16").string()), ids);
    const model::Trace sharded =
        model::runModel(*io::loadCheckpoint((kRotaryCases / "qwen2_tied_sharded").string()), ids);
    double bf16_worst = 0, sharded_worst = 0;
    for (std::size_t l = 0; l < f32.layers.size(); ++l)
        for (std::size_t i = 0; i < f32.layers[l].attention.heads.size(); ++i) {
            const Eigen::MatrixXf& w = f32.layers[l].attention.heads[i].weights;
            bf16_worst = std::max(bf16_worst, double((bf16.layers[l].attention.heads[i].weights - w).cwiseAbs().maxCoeff()));
            sharded_worst = std::max(sharded_worst, double((sharded.layers[l].attention.heads[i].weights - w).cwiseAbs().maxCoeff()));
        }
    std::printf("BF16 vs F32 attention: %.2e; sharded vs single file: %.2e\n", bf16_worst, sharded_worst);
    EXPECT_LE(bf16_worst, kBf16Tolerance);
    EXPECT_GT(bf16_worst, 0.0);  // the BF16 copy really is rounded
    EXPECT_EQ(sharded_worst, 0.0);
}

// ---- folders that cannot be opened: one clear message each ----------------------------------

class RotaryCheckpointErrors : public TempDirTest {
protected:
    // A copy of a reference case to damage.
    fs::path copyOf(const std::string& name) {
        const fs::path to = dir_ / name;
        fs::copy(kRotaryCases / name, to, fs::copy_options::recursive);
        return to;
    }
    static void rewriteConfig(const fs::path& folder, const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json config = nlohmann::json::parse(std::ifstream(folder / "config.json"));
        edit(config);
        std::ofstream(folder / "config.json") << config.dump();
    }
};

TEST_F(RotaryCheckpointErrors, UnsupportedModelTypeNamesTheSupportedOnes) {
    const fs::path folder = copyOf("qwen2_tied");
    rewriteConfig(folder, [](nlohmann::json& c) { c["model_type"] = "t5"; });
    EXPECT_THAT(loadError(folder), HasSubstr("its model_type 't5' is not supported (supported: gpt2, llama, mistral, "
                                             "qwen2, qwen3, smollm3, olmo2, gemma2, gemma3_text, gemma3, phi3, gpt_neox, "
                                             "bert, roberta, distilbert, modernbert)"));
}

TEST_F(RotaryCheckpointErrors, PytorchBinOnlySaysHowToConvert) {
    const fs::path folder = copyOf("qwen2_tied");
    fs::remove(folder / "model.safetensors");
    writeFile("not a pickle", "qwen2_tied/pytorch_model.bin");
    const std::string e = loadError(folder);
    EXPECT_THAT(e, HasSubstr("it has only pytorch_model.bin"));
    EXPECT_THAT(e, HasSubstr("save_file("));
    EXPECT_EQ(e.find('\n'), std::string::npos);  // one line
}

TEST_F(RotaryCheckpointErrors, MissingShardIsNamed) {
    const fs::path folder = copyOf("qwen2_tied_sharded");
    fs::remove(folder / "model-00002-of-00002.safetensors");
    EXPECT_THAT(loadError(folder), HasSubstr("the shard 'model-00002-of-00002.safetensors' it lists is missing"));
}

TEST_F(RotaryCheckpointErrors, ShapeLieNamesTheTensorAndTheConfig) {
    const fs::path folder = copyOf("qwen2_tied");
    rewriteConfig(folder, [](nlohmann::json& c) { c["num_key_value_heads"] = 4; });
    const std::string e = loadError(folder);
    EXPECT_THAT(e, HasSubstr("tensor 'model.layers.0.self_attn.k_proj.weight' has shape (16, 24)"));
    EXPECT_THAT(e, HasSubstr("needs (32, 24)"));
}

TEST_F(RotaryCheckpointErrors, UnsupportedRopeScalingInOneLine) {
    const fs::path folder = copyOf("qwen2_tied");
    rewriteConfig(folder, [](nlohmann::json& c) { c["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}}; });
    EXPECT_THAT(loadError(folder), HasSubstr("rope_type 'yarn' (in \"rope_scaling\") is not supported (supported: default, "
                                             "linear, llama3)"));
}

// A hostile value in a refusal is quoted and shortened: the message stays one bounded line
// (a fuzz finding: "num_experts" as a 3,000-character string was repeated whole).
TEST_F(RotaryCheckpointErrors, LongRefusedValueIsShortened) {
    const fs::path folder = copyOf("qwen2_tied");
    rewriteConfig(folder, [](nlohmann::json& c) { c["num_experts"] = std::string(3000, 'x') + "\n"; });
    const std::string e = loadError(folder);
    EXPECT_THAT(e, HasSubstr("\"num_experts\" is '\"xxxx"));
    EXPECT_THAT(e, HasSubstr("mixture-of-experts MLPs are not supported"));
    EXPECT_LT(e.size(), 600u);
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

// The config readers take any JSON: a model_type that is not a string is refused in a sentence
// (a fuzz finding: the Gemma 3 image-text check read it as a string and threw past the reader).
TEST_F(RotaryCheckpointErrors, ModelTypeThatIsNotAStringIsRefused) {
    const std::string path = writeFile(R"({"model_type": 99, "num_hidden_layers": 2})", "config.json");
    for (const auto read : {&io::readLlamaConfig, &io::readNeoxConfig, &io::readEncoderConfig}) {
        try {
            read(path);
            ADD_FAILURE() << "read";
        } catch (const io::IoError& e) {
            EXPECT_THAT(e.what(), HasSubstr("\"model_type\" is not a string"));
        }
    }
}

// A whole number past long long is named as written, not as its wrapped value (-1 for 2^64 - 1).
TEST_F(RotaryCheckpointErrors, HugeWholeNumberIsNamedAsWritten) {
    const fs::path folder = copyOf("qwen2_tied");
    rewriteConfig(folder, [](nlohmann::json& c) { c["num_hidden_layers"] = std::uint64_t(-1); });
    EXPECT_THAT(loadError(folder), HasSubstr("\"num_hidden_layers\" is 18446744073709551615; supported: 1 to 256"));
}

// A context length must be a whole number of positions: 8192.5 or 0.5 are refused, never
// truncated (0.5 used to become 0 and leave the default 8192 in its place without a word).
TEST_F(RotaryCheckpointErrors, FractionalOriginalContextIsRefused) {
    for (const double original : {0.5, 8192.5}) {
        const fs::path folder = copyOf("qwen2_tied");
        rewriteConfig(folder, [&](nlohmann::json& c) {
            c["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                                 {"high_freq_factor", 4.0}, {"original_max_position_embeddings", original}};
        });
        EXPECT_THAT(loadError(folder), HasSubstr("\"rope_scaling\"'s 'original_max_position_embeddings' " +
                                                 nlohmann::json(original).dump() + " is not a whole number"));
        fs::remove_all(folder);
    }
    const fs::path folder = copyOf("qwen2_tied");  // 8192.0 is 8192
    rewriteConfig(folder, [](nlohmann::json& c) {
        c["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                             {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 64.0}};
    });
    EXPECT_EQ(io::loadCheckpoint(folder.string())->config.rope_original_max_positions, 64);
}

TEST_F(RotaryCheckpointErrors, NonFiniteWeightIsRefused) {
    const fs::path folder = copyOf("neox_sequential");
    // Overwrite the last 4 bytes of the file (the last tensor in name order) with a NaN.
    {
        std::fstream f(folder / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-4, std::ios::end);
        const unsigned char nan[4] = {0x00, 0x00, 0xc0, 0x7f};
        f.write(reinterpret_cast<const char*>(nan), 4);
    }
    EXPECT_THAT(loadError(folder), HasSubstr("has the value NaN"));
}

TEST(TrainedRotaryModel, TokenizerJsonGivesTheReadmesIds) {
    if (!fs::exists(kSharedModels / "llama-induction/tokenizer.json") ||
        !fs::exists(kSharedModels / "neox-induction/tokenizer.json"))
        GTEST_SKIP() << "the trained checkpoints in ../shared/models are absent";
    const model::ModelPtr llama = io::loadCheckpoint((kSharedModels / "llama-induction").string());
    EXPECT_EQ(llama->tokenizer->encode("abc abc"), (std::vector<int>{1, 259, 260, 261, 262, 259, 260, 261, 262}));
    const model::ModelPtr neox = io::loadCheckpoint((kSharedModels / "neox-induction").string());
    EXPECT_EQ(neox->tokenizer->encode("abc abc"), (std::vector<int>{99, 100, 101, 34, 99, 100, 101}));
}

// Longer inputs than the window run (issue 33): the ninth query no longer sees the first key.
TEST_F(RotaryCheckpointErrors, MistralSlidingWindowMasksKeysOutsideIt) {
    const fs::path folder = copyOf("llama3_scaled");
    rewriteConfig(folder, [](nlohmann::json& c) {
        c["model_type"] = "mistral";
        c["sliding_window"] = 8;
    });
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    EXPECT_EQ(m->config.familyName(), "Mistral");
    const model::Trace trace = model::runModel(*m, std::vector<int>(9, 1));
    EXPECT_FALSE(trace.layers[0].attention.allowed(8, 0));
    EXPECT_TRUE(trace.layers[0].attention.allowed(8, 1));
    EXPECT_EQ(trace.layers[0].attention.heads[0].weights(8, 0), 0.0f);
    EXPECT_EQ(model::layerAnalysis(*m, trace, 0).sliding_window, 8);
}

// The Score view's split of one rotary score: each pair of the rotated q, k adds what
// splitByRotaryPair computes from the unrotated ones (rotations keep a pair's dot product), the
// parts sum to q_i . k_j, and the plain W_QK,i bilinear split is not offered.
TEST(RandomRotaryModel, ScoreBreakdownSplitsARotaryScoreByPair) {
    for (const char* name : {"qwen2_tied", "neox_sequential"}) {
        const model::ModelPtr m = io::loadCheckpoint((kRotaryCases / name).string());
        const model::Trace trace = model::runModel(*m, {1, 5, 9, 2, 7, 5, 9});
        const Analysis a = model::layerAnalysis(*m, trace, 1);
        ASSERT_TRUE(a.rotary.enabled()) << name;
        const Weights& w = a.weights();
        const int head = 1, row = 6, col = 2, d_k = w.d_k;
        const Eigen::MatrixXf merged = mergedQK(w, head);
        const ScoreBreakdown b = scoreBreakdown(a, head, row, col, &merged);
        ASSERT_TRUE(b.rotary_pairs.has_value()) << name;
        EXPECT_FALSE(b.bilinear.has_value()) << name;
        EXPECT_EQ(b.delta, col - row);
        EXPECT_NEAR(b.rotary_pairs->total, b.dot, 1e-5 * (1 + std::abs(b.dot))) << name;
        // Unrotated q, k of the cell: x W + b before the rotation.
        const Eigen::RowVectorXf x_i = a.input.query.X.row(row), x_j = a.input.key_value.X.row(col);
        Eigen::VectorXd q = (x_i * w.queryHead(head)).transpose().cast<double>();
        Eigen::VectorXd k = (x_j * w.keyHead(head)).transpose().cast<double>();
        if (w.hasBias()) {
            q += w.b_Q.segment(head * d_k, d_k).transpose().cast<double>();
            k += w.b_K.segment(w.kvHeadOf(head) * d_k, d_k).transpose().cast<double>();
        }
        const PairSplit expected = splitByRotaryPair(a.rotary, q, k, b.delta);
        ASSERT_EQ(expected.pairs.size(), b.rotary_pairs->pairs.size());
        for (std::size_t p = 0; p < expected.pairs.size(); ++p) {
            EXPECT_NEAR(b.rotary_pairs->pairs[p].contribution, expected.pairs[p].contribution, 1e-5) << name << " pair " << p;
            EXPECT_NEAR(b.rotary_pairs->pairs[p].angle, expected.pairs[p].angle, 1e-9) << name << " pair " << p;
        }
        EXPECT_NEAR(b.rotary_pairs->unrotated, expected.unrotated, 1e-5) << name;
    }
}
