// Opening GPT-2 checkpoint directories: what loads, and every way a checkpoint can be bad,
// each refused with one IoError sentence naming the file and the problem, quickly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "TempDirTest.h"
#include "io/CheckpointFiles.h"
#include "io/Gpt2Checkpoint.h"
#include "io/IoError.h"
#include "io/Safetensors.h"

namespace fs = std::filesystem;
using headscope::io::IoError;
using headscope::io::loadGpt2Checkpoint;
using ::testing::HasSubstr;

namespace {

const fs::path kCase = fs::path(HEADSCOPE_TEST_DATA_DIR) / "gpt2" / "f32_prefix_tied";

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class BadCheckpoint : public TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        ckpt_ = dir_ / "ckpt";
        fs::copy(kCase, ckpt_);
    }

    void editConfig(const std::function<void(nlohmann::json&)>& edit) const {
        auto config = nlohmann::json::parse(slurp(ckpt_ / "config.json"));
        edit(config);
        spit(ckpt_ / "config.json", config.dump());
    }

    // Header JSON and where the data starts.
    std::pair<nlohmann::json, std::size_t> header() const {  // NOLINT
        const std::string bytes = slurp(ckpt_ / "model.safetensors");
        std::uint64_t length = 0;
        for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[i]);
        return {nlohmann::json::parse(bytes.substr(8, length)), 8 + length};
    }

    // The one error message loading gives; fails the test when loading succeeds.
    std::string loadError() const {
        const auto start = std::chrono::steady_clock::now();
        try {
            loadGpt2Checkpoint(ckpt_.string());
        } catch (const IoError& e) {
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            EXPECT_LT(seconds, 1.0) << "refusing a bad checkpoint must be quick";
            const std::string message = e.what();
            EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
            return message;
        }
        ADD_FAILURE() << "the bad checkpoint loaded";
        return "";
    }

    fs::path ckpt_;
};

}  // namespace

TEST(Gpt2Checkpoint, LoadsPrefixedNamesSkipsMaskBuffersAndTiesTheOutput) {
    const auto m = loadGpt2Checkpoint(kCase.string());
    EXPECT_EQ(m->config.n_layer, 2);
    EXPECT_EQ(m->config.n_head, 2);
    EXPECT_EQ(m->config.n_embd, 8);
    EXPECT_EQ(m->config.n_inner, 32);
    EXPECT_TRUE(m->tiedOutput());
    EXPECT_EQ(&m->outputEmbedding(), &m->wte);
    EXPECT_EQ(m->attentionWeights(0)->W_Q.rows(), 8);
    EXPECT_EQ(m->attentionWeights(0)->W_Q.cols(), 8);
    // wte 12x8, wpe 16x8, per block 2 LN (32) + attention (8*24+24 + 8*8+8) + MLP (8*32+32 + 32*8+8), ln_f 16
    EXPECT_EQ(m->parameterCount(), 96 + 128 + 2 * (32 + 288 + 552) + 16);
}

TEST_F(BadCheckpoint, MissingDirectoryOrFileIsNamed) {
    EXPECT_THAT([&] { try { loadGpt2Checkpoint((dir_ / "nowhere").string()); } catch (const IoError& e) { return std::string(e.what()); } return std::string(); }(),
                HasSubstr("does not exist"));
    EXPECT_THAT([&] { try { loadGpt2Checkpoint((ckpt_ / "config.json").string()); } catch (const IoError& e) { return std::string(e.what()); } return std::string(); }(),
                HasSubstr("not a directory"));
    for (const char* name : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
        const fs::path saved = dir_ / "saved";
        fs::rename(ckpt_ / name, saved);
        EXPECT_THAT(loadError(), HasSubstr(std::string("it has no ") + name));
        fs::rename(saved, ckpt_ / name);
    }
}

TEST_F(BadCheckpoint, ConfigThatIsNotJsonOrLacksAKey) {
    spit(ckpt_ / "config.json", "{\"n_layer\": 2,");
    EXPECT_THAT(loadError(), HasSubstr("config.json': it is not valid JSON"));
    // A hostile config (a million '[' under the 1 MB cap) is refused before the parser sees it.
    spit(ckpt_ / "config.json", "{\"n_layer\": " + std::string(1000000, '['));
    EXPECT_THAT(loadError(), HasSubstr("config.json': it nests JSON more than 64 levels deep"));
    spit(ckpt_ / "config.json", R"({"n_layer": 2, "n_embd": 8, "vocab_size": 12, "n_positions": 16})");
    EXPECT_THAT(loadError(), HasSubstr("no \"n_head\""));
}

TEST_F(BadCheckpoint, UnsupportedActivationOrModelTypeOrIndivisibleWidth) {
    editConfig([](auto& c) { c["activation_function"] = "swish"; });
    EXPECT_THAT(loadError(), HasSubstr("\"activation_function\" 'swish' is not supported"));
    // Names from the file are quoted: escaped onto one line and shortened (found by fuzz_gpt2_config).
    editConfig([](auto& c) { c["activation_function"] = "gel#u\new"; });
    EXPECT_THAT(loadError(), HasSubstr("'gel#u\\new' is not supported"));
    editConfig([](auto& c) { c["activation_function"] = std::string(100000, 'x'); });
    EXPECT_LT(loadError().size(), 400u);
    editConfig([](auto& c) { c["activation_function"] = "gelu_new"; c["model_type"] = "gpt2\r" + std::string(100000, 'y'); });
    EXPECT_LT(loadError().size(), 400u);
    EXPECT_EQ(loadError().find('\r'), std::string::npos);
    editConfig([](auto& c) { c["activation_function"] = "gelu_new"; c["model_type"] = "llama"; });
    EXPECT_THAT(loadError(), HasSubstr("only \"gpt2\""));
    editConfig([](auto& c) { c["model_type"] = "gpt2"; c["n_head"] = 3; });
    EXPECT_THAT(loadError(), HasSubstr("n_embd 8 is not divisible by n_head 3"));
}

TEST_F(BadCheckpoint, ConfigThatDisagreesWithTheTensors) {
    editConfig([](auto& c) { c["n_embd"] = 16; });
    std::string e = loadError();
    EXPECT_THAT(e, HasSubstr("model.safetensors"));
    EXPECT_THAT(e, HasSubstr("'transformer.wte.weight' has shape (12, 8)"));
    EXPECT_THAT(e, HasSubstr("needs (12, 16)"));
    editConfig([](auto& c) { c["n_embd"] = 8; c["n_layer"] = 1; });
    EXPECT_THAT(loadError(), HasSubstr("for block 1, but config.json says n_layer 1"));
    editConfig([](auto& c) { c["n_layer"] = 3; });
    EXPECT_THAT(loadError(), HasSubstr("no tensor 'transformer.h.2.ln_1.weight'"));
    editConfig([](auto& c) { c["n_layer"] = 2; c["vocab_size"] = 11; });
    EXPECT_THAT(loadError(), HasSubstr("vocab_size 11"));
    editConfig([](auto& c) { c["vocab_size"] = 12; c["tie_word_embeddings"] = false; });
    EXPECT_THAT(loadError(), HasSubstr("no 'lm_head.weight'"));
}

TEST_F(BadCheckpoint, HugeConfigOverATinyFileFailsFastWithoutAllocating) {
    editConfig([](auto& c) { c["n_embd"] = 4096; c["n_layer"] = 256; c["vocab_size"] = 10000000; c["n_positions"] = 8192; });
    EXPECT_THAT(loadError(), HasSubstr("has shape (12, 8)"));
}

TEST_F(BadCheckpoint, VocabularyWithIdsBeyondTheEmbedding) {
    spit(ckpt_ / "vocab.json", R"({"a": 0, "b": 12})");
    EXPECT_THAT(loadError(), HasSubstr("token id 12"));
}

TEST_F(BadCheckpoint, TruncatedOrLyingSafetensors) {
    const std::string bytes = slurp(ckpt_ / "model.safetensors");
    spit(ckpt_ / "model.safetensors", bytes.substr(0, bytes.size() - 9));
    EXPECT_THAT(loadError(), HasSubstr("model.safetensors"));
    std::string lie = bytes;
    lie[6] = '\x7f';  // header length ~ 2^55
    spit(ckpt_ / "model.safetensors", lie);
    EXPECT_THAT(loadError(), HasSubstr("header length"));
}

TEST_F(BadCheckpoint, WeightOfAnUnsupportedDtype) {
    std::string bytes = slurp(ckpt_ / "model.safetensors");
    const std::string key = "\"transformer.h.0.attn.c_attn.weight\":{\"dtype\":\"F32\"";
    const std::size_t at = bytes.find(key);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at + key.size() - 4, 3, "I32");
    spit(ckpt_ / "model.safetensors", bytes);
    EXPECT_THAT(loadError(), HasSubstr("'transformer.h.0.attn.c_attn.weight' has dtype 'I32'"));
}

TEST_F(BadCheckpoint, NonFiniteWeightIsLocated) {
    const auto [json, data_start] = header();
    const std::size_t begin = json["transformer.h.1.attn.c_attn.weight"]["data_offsets"][0];
    std::string bytes = slurp(ckpt_ / "model.safetensors");
    const std::size_t at = data_start + begin + 4 * (2 * 24 + 9);  // row 2, column 9 of (8, 24)
    const char nan[4] = {0x00, 0x00, static_cast<char>(0xC0), 0x7F};
    std::memcpy(&bytes[at], nan, 4);
    spit(ckpt_ / "model.safetensors", bytes);
    const std::string e = loadError();
    EXPECT_THAT(e, HasSubstr("'transformer.h.1.attn.c_attn.weight' has the value NaN at [2, 9]"));
}

// A tensor of several scan chunks (2^20 values each) with a bad value in two of them: the scan runs on
// the cores, and the message names the first bad value in the tensor's order, whichever chunk was done first.
TEST_F(BadCheckpoint, TheFirstNonFiniteValueOfALargeTensorIsNamed) {
    headscope::io::Tensor w;
    w.shape = {2048, 1536};  // 3 M values: three chunks
    w.data.assign(std::size_t(2048) * 1536, 0.5f);
    w.data[std::size_t(1900) * 1536 + 7] = std::numeric_limits<float>::infinity();  // chunk 2
    w.data[std::size_t(700) * 1536 + 3] = std::numeric_limits<float>::quiet_NaN();  // chunk 1, the first
    const fs::path folder = ckpt_.parent_path() / "large";
    fs::create_directories(folder);
    headscope::io::writeSafetensors((folder / "model.safetensors").string(), {{"w", w}});
    headscope::io::checkpoint::TableLayout layout;
    layout.family = "Test";
    layout.probe = "w";
    layout.skip = [](const std::string&) { return false; };
    layout.is_weight = [](const std::string&) { return true; };
    headscope::io::checkpoint::TensorTable table(folder.string(), layout, 0);
    const headscope::io::checkpoint::Source& s = table.get("w", {2048, 1536}, "the test's");
    table.open();
    const auto cache = std::make_shared<headscope::model::ConversionCache>();
    try {
        table.linear(s, headscope::model::LinearWeight::Layout::OutIn, 0, cache);
        FAIL() << "a NaN was let through";
    } catch (const IoError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'w' has the value NaN at [700, 3]"));
    }
}
