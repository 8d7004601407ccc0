// `headscope-cli model` end to end: a committed tiny GPT-2 checkpoint (tests/data/gpt2), the
// trained nano-sort model in ../shared/models when present, and bad arguments and checkpoints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "io/Checkpoint.h"
#include "io/Npy.h"
#include "io/Safetensors.h"
#include "model/Forward.h"
#include "CliExpect.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using headscope::test::kTinyGpt2;
using ::testing::HasSubstr;

namespace {

const fs::path kNanoSort = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / "nano-sort";

}  // namespace

TEST(CliModel, NanoSortJsonPredictsZeroWithTokensIdsRanksAndAttention) {
    if (!fs::exists(kNanoSort / "model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint " << kNanoSort << " is absent (it lives in ../shared/models)";
    const CliResult r = runCli({"model", "--checkpoint", kNanoSort.string(), "--ids", "2,0,1,1,0,2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ids"], nlohmann::json({2, 0, 1, 1, 0, 2}));
    EXPECT_EQ(j["tokens"], nlohmann::json({"2", "0", "1", "1", "0", "2"}));
    ASSERT_EQ(j["next_tokens"].size(), 3u);  // the whole vocabulary, most probable first
    EXPECT_EQ(j["next_tokens"][0]["id"], 0);
    EXPECT_EQ(j["next_tokens"][0]["token"], "0");
    EXPECT_GT(j["next_tokens"][0]["probability"].get<double>(), 0.5);
    ASSERT_EQ(j["layers"].size(), 3u);
    for (const auto& layer : j["layers"]) {
        ASSERT_EQ(layer["heads"].size(), 3u);
        for (const auto& head : layer["heads"]) {
            EXPECT_EQ(head["qk_rank"], 16);
            const auto& attention = head["attention"];
            ASSERT_EQ(attention.size(), 6u);
            for (const auto& row : attention) {
                double sum = 0;
                for (double w : row) sum += w;
                EXPECT_NEAR(sum, 1.0, 1e-5);
            }
        }
    }
}

// Issue 34: an encoder's --json carries what each head looks at (every pattern, every layer's heads,
// equal to the shares of the attention it prints) and no next token; its text report says why.
TEST(CliModel, AnEncodersJsonCarriesEachHeadsPatternsAndNoNextToken) {
    const std::string bert = (fs::path(HEADSCOPE_TEST_DATA_DIR) / "hf_extra" / "bert_pair").string();
    const CliResult r = runCli({"model", "--checkpoint", bert, "--ids", "5,6,7,8,9", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["mask"], "none");
    EXPECT_TRUE(j["next_tokens"].empty());
    EXPECT_TRUE(j["masked"].empty());
    const auto& previous = j["head_patterns"]["previous token"];
    ASSERT_EQ(previous.size(), 2u);
    for (std::size_t l = 0; l < 2; ++l)
        for (std::size_t h = 0; h < 4; ++h) {
            double sum = 0;  // queries 1..4, each its weight on key q - 1
            for (int q = 1; q < 5; ++q) sum += j["layers"][l]["heads"][h]["attention"][q][q - 1].get<double>();
            EXPECT_NEAR(previous[l][h].get<double>(), sum / 4, 1e-6) << l << " " << h;
        }
    EXPECT_TRUE(j["head_patterns"]["other sentence"][0][0].is_null()) << "one sentence: no other";
    const CliResult text = runCli({"model", "--checkpoint", bert, "--ids", "5,6,7"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_THAT(text.out, HasSubstr("an encoder: no [MASK] in the input"));
}

// --pair joins two sentences with the tokenizer's template (vocab.txt: [CLS] A [SEP] B [SEP], types
// 0 then 1); "other sentence" is then defined; [MASK] gets its guesses in "masked".
TEST(CliModel, AnEncoderReadsASentencePairAndGuessesItsMask) {
    const fs::path dir = fs::temp_directory_path() / ("headscope_cli_pair_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const char* file : {"config.json", "model.safetensors"})
        fs::copy_file(fs::path(HEADSCOPE_TEST_DATA_DIR) / "hf_extra" / "bert_pair" / file, dir / file, fs::copy_options::overwrite_existing);
    {
        std::ofstream vocab(dir / "vocab.txt");
        const std::vector<std::string> words = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat"};
        for (int i = 0; i < 300; ++i) vocab << (i < int(words.size()) ? words[std::size_t(i)] : "[unused" + std::to_string(i) + "]") << "\n";
    }
    const CliResult r = runCli({"model", "--checkpoint", dir.string(), "--text", "the [MASK]", "--pair", "sat on the mat", "--json"});
    fs::remove_all(dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ids"], nlohmann::json({2, 5, 4, 3, 7, 8, 5, 9, 3}));
    EXPECT_EQ(j["token_types"], nlohmann::json({0, 0, 0, 0, 1, 1, 1, 1, 1}));
    EXPECT_EQ(j["second_sentence"], 4);
    EXPECT_FALSE(j["head_patterns"]["other sentence"][0][0].is_null());
    ASSERT_EQ(j["masked"].size(), 1u);
    EXPECT_EQ(j["masked"][0]["position"], 2);
    EXPECT_EQ(j["masked"][0]["top"].size(), 10u);
    expectRefused(runCli({"model", "--checkpoint", kTinyGpt2.string(), "--text", "ab", "--pair", "c"}),
                  "--pair needs --text and an encoder");
}

TEST(CliModel, TextReportListsIdsRanksAndTenNextTokens) {
    const CliResult r = runCli({"model", "--checkpoint", kTinyGpt2.string(), "--text", "ab c ab"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("ids: 11,10,2,10,11"));
    EXPECT_THAT(r.out, HasSubstr("2 layers x 2 heads, d_model 8"));
    EXPECT_THAT(r.out, HasSubstr("top 10 next tokens"));
    EXPECT_THAT(r.out, HasSubstr("\u2423"));  // the space token, visible
    EXPECT_EQ(r.err, "");
}

TEST(CliModel, OutWritesOneAttentionArrayPerLayerMatchingPyTorchAndTheExportImages) {
    TempDir out;
    const CliResult r = runCli({"model", "--checkpoint", kTinyGpt2.string(), "--ids", "11,10,2,10,11,10,9,8,6", "--out",
                                out.str(), "--format", "png,npy"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto expected = headscope::io::readNpy((kTinyGpt2 / "expected_attention.npy").string());  // (L, h, n, n)
    const std::size_t per_layer = expected.data.size() / 2;
    for (int l = 0; l < 2; ++l) {
        const auto got = headscope::io::readNpy((out.path / ("attention_layer_" + std::to_string(l) + ".npy")).string());
        ASSERT_EQ(got.shape, (std::vector<std::int64_t>{2, 9, 9}));
        double worst = 0;
        for (std::size_t i = 0; i < per_layer; ++i)
            worst = std::max(worst, double(std::abs(got.data[i] - expected.data[l * per_layer + i])));
        std::printf("layer %d: max |attention_layer_%d.npy - torch| = %.3g\n", l, l, worst);
        EXPECT_LT(worst, 1e-5);
        EXPECT_TRUE(fs::exists(out.path / ("layer_" + std::to_string(l)) / "attention_weights.png"));
        EXPECT_TRUE(fs::exists(out.path / ("layer_" + std::to_string(l)) / "W_Q.npy"));
    }
}

TEST(CliModel, LayerOptionWritesOnlyThatLayer) {
    TempDir out;
    const CliResult r = runCli({"model", "--checkpoint", kTinyGpt2.string(), "--ids", "1,2,3", "--layer", "1", "--out",
                                out.str(), "--format", "npy", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);  // still one JSON object with --out
    ASSERT_EQ(j["layers"].size(), 1u);
    EXPECT_EQ(j["layers"][0]["layer"], 1);
    EXPECT_TRUE(fs::exists(out.path / "attention_layer_1.npy"));
    EXPECT_FALSE(fs::exists(out.path / "attention_layer_0.npy"));
}

// Issue 33: the attention arrays of every layer and nothing else (no layer_<L>/, no rank table).
TEST(CliModel, AttentionOnlyWritesTheArraysAlone) {
    TempDir out;
    const CliResult r = runCli({"model", "--checkpoint", kTinyGpt2.string(), "--ids", "1,2,3", "--out", out.str(),
                                "--attention-only", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> written;
    for (const auto& entry : fs::directory_iterator(out.path)) written.push_back(entry.path().filename().string());
    std::sort(written.begin(), written.end());
    EXPECT_EQ(written, (std::vector<std::string>{"attention_layer_0.npy", "attention_layer_1.npy"}));
    EXPECT_EQ(headscope::io::readNpy((out.path / "attention_layer_1.npy").string()).shape, (std::vector<std::int64_t>{2, 3, 3}));
    expectRefused(runCli({"model", "--checkpoint", kTinyGpt2.string(), "--ids", "1", "--attention-only"}),
                  "need --out DIR");
    expectRefused(runCli({"model", "--checkpoint", kTinyGpt2.string(), "--ids", "1", "--out", out.str(),
                          "--attention-only", "--format", "png"}),
                  "leave out --format");
}

// Issue 35 item 4: an input whose every map would take over 4 GiB (12 layers x 16 heads of 1,800 x 1,800,
// 5 GB) runs, one layer's maps at a time; the arrays written are the forward's own.
TEST(CliModel, ALongInputKeepsOneLayersMapsAtATime) {
    TempDir dir, out;
    const int layers = 12, heads = 16, d = 64, positions = 2048, vocab = 50, n = 1800;
    std::map<std::string, headscope::io::Tensor> tensors;
    std::mt19937 random(9);
    std::uniform_real_distribution<float> uniform(-0.3f, 0.3f);
    const auto add = [&](const std::string& name, std::vector<std::int64_t> shape, bool ones = false) {
        headscope::io::Tensor& t = tensors[name];
        t.shape = shape;
        std::int64_t size = 1;
        for (std::int64_t s : shape) size *= s;
        t.data.resize(std::size_t(size));
        for (float& v : t.data) v = ones ? 1.0f : uniform(random);
    };
    add("wte.weight", {vocab, d});
    add("wpe.weight", {positions, d});
    for (int l = 0; l < layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        for (const char* ln : {"ln_1.", "ln_2."}) add(h + ln + "weight", {d}, true), add(h + ln + "bias", {d});
        add(h + "attn.c_attn.weight", {d, 3 * d}), add(h + "attn.c_attn.bias", {3 * d});
        add(h + "attn.c_proj.weight", {d, d}), add(h + "attn.c_proj.bias", {d});
        add(h + "mlp.c_fc.weight", {d, 4 * d}), add(h + "mlp.c_fc.bias", {4 * d});
        add(h + "mlp.c_proj.weight", {4 * d, d}), add(h + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d}, true), add("ln_f.bias", {d});
    headscope::io::writeSafetensors((dir.path / "model.safetensors").string(), tensors);
    std::ofstream(dir.path / "config.json") << nlohmann::json{{"model_type", "gpt2"}, {"n_layer", layers}, {"n_head", heads},
                                                              {"n_embd", d}, {"n_positions", positions},
                                                              {"vocab_size", vocab}}.dump();
    std::vector<int> ids;
    std::string list;
    for (int i = 0; i < n; ++i) ids.push_back((i * 7 + i / 13) % vocab), list += (i ? "," : "") + std::to_string(ids.back());
    const CliResult r = runCli({"model", "--checkpoint", dir.str(), "--ids", list, "--layer", "0", "--out", out.str(),
                                "--attention-only"});
    ASSERT_EQ(r.status, 0) << r.err;  // refused before: "would need more than 4 GiB"
    const headscope::io::Tensor written = headscope::io::readNpy((out.path / "attention_layer_0.npy").string());
    ASSERT_EQ(written.shape, (std::vector<std::int64_t>{heads, n, n}));
    // Layer 0 as a forward that stops after it computes it, every map kept.
    const headscope::model::ModelPtr m = headscope::io::loadCheckpoint(dir.str());
    headscope::model::ForwardOptions first;
    first.layers = 1;
    const headscope::model::Trace trace = headscope::model::runModel(*m, ids, first);
    for (int h = 0; h < heads; h += 5)
        for (int q = 0; q < n; q += 97)
            for (int k = 0; k <= q; k += 31)
                ASSERT_EQ(written.data[(std::size_t(h) * n + q) * n + k], trace.layers[0].attention.heads[std::size_t(h)].weights(q, k))
                    << "head " << h << " query " << q << " key " << k;
}

TEST(CliModel, BadArgumentsAreOneLineAndStatusTwo) {
    const std::string tiny = kTinyGpt2.string();
    expectRefused(runCli({"model", "--ids", "1"}), "--checkpoint is required");
    expectRefused(runCli({"model", "--checkpoint", tiny}), "either --text or --ids");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--text", "ab", "--ids", "1"}), "either --text or --ids");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--ids", "1,x"}), "--ids expects a whole number");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--ids", "1,12"}), "token id 12");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--text", "abK"}), "'K'");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--ids", "1", "--layer", "2"}), "--layer 2 is out of range");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--ids", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"}), "at most 16");
    expectRefused(runCli({"model", "--checkpoint", tiny, "--ids", "1", "--format", "png"}), "need --out");
}

// The report's first line gives the longest input HeadScope runs, not the config's context where
// that is longer (a Llama 3 config says 131,072; inputs are refused past 8,192).
TEST(CliModel, TheReportSaysHowLongAnInputMayBe) {
    TempDir tmp;
    const fs::path folder = tmp.path / "qwen2";
    fs::copy(fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary" / "qwen2_tied", folder);
    auto config = nlohmann::json::parse(readFile(folder / "config.json"));
    for (const int positions : {32, 131072}) {
        config["max_position_embeddings"] = positions;
        writeFile(folder / "config.json", config.dump());
        const CliResult r = runCli({"model", "--checkpoint", folder.string(), "--ids", "1,2,3"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_THAT(r.out, HasSubstr(", longest input " + std::to_string(std::min(positions, 8192)) + " tokens,"));
        EXPECT_THAT(r.out, ::testing::Not(HasSubstr("context")));
    }
}

TEST(CliModel, BadCheckpointsAreOneLineNamingTheFile) {
    TempDir tmp;
    expectRefused(runCli({"model", "--checkpoint", (tmp.path / "absent").string(), "--ids", "1"}), "does not exist");
    const fs::path bad = tmp.path / "bad";
    fs::copy(kTinyGpt2, bad);
    auto config = nlohmann::json::parse(readFile(bad / "config.json"));
    config["n_embd"] = 16;
    writeFile(bad / "config.json", config.dump());
    expectRefused(runCli({"model", "--checkpoint", bad.string(), "--ids", "1"}), "model.safetensors");
    config["n_embd"] = 8;
    writeFile(bad / "config.json", config.dump());
    const std::string bytes = readFile(bad / "model.safetensors");
    writeFile(bad / "model.safetensors", bytes.substr(0, bytes.size() / 2));
    expectRefused(runCli({"model", "--checkpoint", bad.string(), "--ids", "1"}), "model.safetensors");
}

TEST(CliModel, UsageListsTheModelCommand) {
    const CliResult r = runCli({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_THAT(r.out, HasSubstr("model   --checkpoint DIR|REPO [--revision R] (--text \"...\" [--pair \"...\"] | --ids 1,2,3)"));
}

// Rotary families (issue 22): the committed random Llama 3 / NeoX folders and the trained
// llama-induction; --json names the architecture, the text report prints it in one line.
TEST(CliModel, RotaryFamiliesNameTheirArchitecture) {
    const fs::path llama3 = fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary" / "llama3_scaled";
    CliResult r = runCli({"model", "--checkpoint", llama3.string(), "--ids", "3,1,4,1,5", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& a = j["architecture"];
    EXPECT_EQ(a["family"], "Llama");
    EXPECT_EQ(a["model_type"], "llama");
    EXPECT_EQ(a["norm"], "RMSNorm");
    EXPECT_EQ(a["activation"], "silu");
    EXPECT_EQ(a["kv_heads"], 1);
    EXPECT_EQ(a["heads"], 4);
    EXPECT_EQ(a["dtype"], "F16");
    EXPECT_EQ(a["rope"]["theta"], 500000.0);
    EXPECT_EQ(a["rope"]["share"], 1.0);
    EXPECT_EQ(a["rope"]["scaling"], "llama3");
    EXPECT_EQ(a["parameters"], j["model"]["parameters"]);
    ASSERT_EQ(j["layers"].size(), 2u);

    const fs::path neox = fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary" / "neox_sequential";
    r = runCli({"model", "--checkpoint", neox.string(), "--ids", "3,1,4"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, ::testing::HasSubstr("GPT-NeoX checkpoint"));
    EXPECT_THAT(r.out, ::testing::HasSubstr("architecture: GPT-NeoX, LayerNorm, MLP gelu, RoPE theta 10000 on 50% of each head"));

    const fs::path trained = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / "llama-induction";
    if (!fs::exists(trained / "model.safetensors")) GTEST_SKIP() << trained << " is absent (it lives in ../shared/models)";
    // tokenizer.json: <s> and the Llama 2 layout; the repeated string's next token is its first symbol.
    r = runCli({"model", "--checkpoint", trained.string(), "--text", "qzxw mkbtpjqzxw mkbtpjqzxw mkbtpj", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ids"][0], 1);
    EXPECT_EQ(j["next_tokens"][0]["token"], "q");
}

TEST(CliModel, FolderWithoutConfigJsonIsRefusedInOneLine) {
    const CliResult r = runCli({"model", "--checkpoint", (fs::path(HEADSCOPE_TEST_DATA_DIR) / "mha").string(), "--ids", "1"});
    EXPECT_NE(r.status, 0);
    EXPECT_THAT(r.err, ::testing::HasSubstr("it has no config.json"));
}

// --json names the weights' dtype as loaded and the process's peak resident memory (MiB): more
// than nothing, less than a few hundred MiB for checkpoints of a few kilobytes.
TEST(CliModel, JsonReportsTheDtypeAsLoadedAndThePeakMemory) {
    const fs::path data = fs::path(HEADSCOPE_TEST_DATA_DIR);
    const std::vector<std::pair<fs::path, std::string>> committed = {
        {data / "gpt2" / "f32_prefix_tied", "F32"}, {data / "gpt2" / "f16_tied_inner", "F16"},
        {data / "gpt2" / "bf16_prefix_untied", "BF16"}, {data / "rotary" / "qwen2_tied_bf16", "BF16"}};
    for (const auto& [folder, dtype] : committed) {
        SCOPED_TRACE(folder.filename().string());
        const CliResult r = runCli({"model", "--checkpoint", folder.string(), "--ids", "1,2", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["model"]["dtype"], dtype);
        EXPECT_EQ(j["architecture"]["dtype"], dtype);
        ASSERT_TRUE(j.contains("peak_memory_mib"));
        EXPECT_GT(j["peak_memory_mib"].get<double>(), 1.0);
        EXPECT_LT(j["peak_memory_mib"].get<double>(), 1024.0);
    }
    for (const char* name : {"nano-sort", "induction", "llama-induction", "neox-induction"}) {
        const fs::path trained = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / name;
        if (!fs::exists(trained / "model.safetensors")) {
            std::cout << "skipping " << name << ": " << trained << " is absent (it lives in ../shared/models)\n";
            continue;
        }
        SCOPED_TRACE(name);
        const CliResult r = runCli({"model", "--checkpoint", trained.string(), "--ids", "1", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(nlohmann::json::parse(r.out)["model"]["dtype"], "F32");  // ../shared/models/README.md: all are F32
    }
}

// --cache-layers N (F16/BF16 layers kept converted): accepted on model and bench, listed in their
// --help; -1 and "abc" are one line each with exit status 2.
TEST(CliModel, CacheLayersOption) {
    const std::string bf16 = (fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary" / "qwen2_tied_bf16").string();
    const CliResult zero = runCli({"model", "--checkpoint", bf16, "--ids", "1,2,3", "--json", "--cache-layers", "0"});
    ASSERT_EQ(zero.status, 0) << zero.err;
    const CliResult usual = runCli({"model", "--checkpoint", bf16, "--ids", "1,2,3", "--json"});
    ASSERT_EQ(usual.status, 0) << usual.err;
    const auto strip = [](const std::string& out) {  // the same report but for the peak memory
        auto j = nlohmann::json::parse(out);
        j.erase("peak_memory_mib");
        return j;
    };
    EXPECT_EQ(strip(zero.out), strip(usual.out));
    for (const char* bad : {"-1", "abc"})
        for (const char* command : {"model", "bench"}) {
            SCOPED_TRACE(std::string(command) + " " + bad);
            const CliResult r = std::string(command) == "model"
                                    ? runCli({"model", "--checkpoint", bf16, "--ids", "1", "--cache-layers", bad})
                                    : runCli({"bench", "--models-only", "--quick", "--cache-layers", bad});
            EXPECT_EQ(r.status, 2) << r.out << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_THAT(r.err, HasSubstr(std::string(bad) == "abc" ? "--cache-layers expects a whole number, got 'abc'"
                                                                    : "--cache-layers -1 is out of range: choose 0 to"));
        }
    for (const char* command : {"model", "bench"}) {
        const CliResult help = runCli({command, "--help"});
        EXPECT_EQ(help.status, 0);
        EXPECT_THAT(help.out, HasSubstr("--cache-layers"));
    }
    EXPECT_THAT(runCli({"--help"}).out, HasSubstr("[--cache-layers N]"));
}
