// --delta N (issue 22 item 4): `model --out` on the committed rotary Llama 3 folder writes each
// head's W_QK,i(Delta) equal to core's W_i^Q M(Delta) (W_g^K)^T, and its W_QK pictures name the
// Delta; a Delta outside the input and any Delta on a model without rotary positions are one
// line each with exit status 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "CliRunner.h"
#include "RotaryCircuits.h"
#include "cli/ModelOutputBytes.h"
#include "io/Checkpoint.h"
#include "io/Safetensors.h"
#include "io/Npy.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kLlama3 = fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary" / "llama3_scaled";
const fs::path kGpt2 = fs::path(HEADSCOPE_TEST_DATA_DIR) / "gpt2" / "f32_prefix_tied";

void expectOneLineRefusal(const CliResult& r, const std::string& what) {
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(what));
}

}  // namespace

TEST(CliDelta, ModelOutWritesTheRotatedCircuitAtDelta) {
    TempDir out;
    const CliResult r = runCli({"model", "--checkpoint", kLlama3.string(), "--ids", "3,1,4,1,5,9,2", "--layer", "1",
                                "--out", out.str(), "--format", "npy,svg", "--delta", "3"});
    ASSERT_EQ(r.status, 0) << r.err;

    // Core's W_QK,i(3) from the same weights and input.
    const headscope::model::ModelPtr m = headscope::io::loadCheckpoint(kLlama3.string());
    const headscope::model::Trace trace = headscope::model::runModel(*m, {3, 1, 4, 1, 5, 9, 2});
    const headscope::Analysis layer = headscope::model::layerAnalysis(*m, trace, 1);
    ASSERT_TRUE(layer.rotary.enabled());
    const fs::path dir = out.path / "layer_1";
    for (int h = 0; h < 4; ++h) {
        const headscope::ThinFactors f = headscope::rotatedQueryKey(layer.weights(), h, layer.rotary, 3);
        const Eigen::MatrixXd expected = f.A * f.B.transpose();  // (32, 32)
        const auto got = headscope::io::readNpy((dir / ("head_" + std::to_string(h) + "_W_QK_delta_3.npy")).string());
        ASSERT_EQ(got.shape, (std::vector<std::int64_t>{32, 32}));
        double worst = 0;
        for (int i = 0; i < 32; ++i)
            for (int j = 0; j < 32; ++j) worst = std::max(worst, std::abs(double(got.data[std::size_t(i * 32 + j)]) - expected(i, j)));
        EXPECT_LE(worst, 1e-5 * std::max(1.0, expected.cwiseAbs().maxCoeff())) << "head " << h;
        // ... and it is not the product without the rotation, which is written beside it.
        const auto plain = headscope::io::readNpy((dir / ("head_" + std::to_string(h) + "_W_QK.npy")).string());
        double apart = 0;
        for (std::size_t k = 0; k < plain.data.size(); ++k) apart = std::max(apart, double(std::abs(plain.data[k] - got.data[k])));
        EXPECT_GT(apart, 1e-3) << "head " << h;
    }
    // The W_QK pictures say which Delta they show.
    const auto names = [&](const char* file) { return readFile(dir / file).find("Δ = 3") != std::string::npos; };
    EXPECT_TRUE(names("circuit_qk_head_0.svg"));
    EXPECT_TRUE(names("spectrum_qk.svg"));
    EXPECT_FALSE(names("circuit_ov_head_0.svg"));
}

TEST(CliDelta, BadDeltaAndModelsWithoutRotaryPositionsAreOneLine) {
    TempDir out;
    const std::string llama3 = kLlama3.string();
    // 7 tokens: key minus query positions run from -6 to 6.
    expectOneLineRefusal(runCli({"model", "--checkpoint", llama3, "--ids", "3,1,4,1,5,9,2", "--out", out.str(), "--delta", "7"}),
                         "--delta 7 is out of range for this input: choose -6 to 6");
    expectOneLineRefusal(runCli({"model", "--checkpoint", llama3, "--ids", "3,1,4", "--out", out.str(), "--delta", "two"}),
                         "--delta expects a whole number, got 'two'");
    expectOneLineRefusal(runCli({"model", "--checkpoint", llama3, "--ids", "3,1,4", "--delta", "1"}), "need --out DIR");
    expectOneLineRefusal(runCli({"model", "--checkpoint", kGpt2.string(), "--ids", "1,2,3", "--out", out.str(), "--delta", "1"}),
                         "--delta applies only to models with rotary positions (RoPE)");
    expectOneLineRefusal(runCli({"export", "--heads", "2", "--out", out.str(), "--delta", "0"}),
                         "--delta applies only to models with rotary positions (RoPE)");
    EXPECT_TRUE(fs::is_empty(out.path)) << "a refused command wrote files";
    const CliResult help = runCli({"export", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_THAT(help.out, HasSubstr("--delta"));
}

namespace {

// A Llama folder of one layer, d_model 1024, `heads` heads of 16 on one key/value head, F32
// weights (small sines: any finite values do), with llama3_scaled's 16-token vocabulary.
void writeWideLlama(const fs::path& dir, int heads) {
    fs::create_directories(dir);
    const int d = 1024, q = heads * 16;
    writeFile(dir / "config.json",
              "{\"model_type\": \"llama\", \"hidden_size\": 1024, \"intermediate_size\": 16, \"num_hidden_layers\": 1, "
              "\"num_attention_heads\": " + std::to_string(heads) + ", \"num_key_value_heads\": 1, \"head_dim\": 16, "
              "\"hidden_act\": \"silu\", \"max_position_embeddings\": 16, \"rms_norm_eps\": 1e-05, \"rope_theta\": 10000.0, "
              "\"tie_word_embeddings\": true, \"vocab_size\": 16}");
    for (const char* file : {"vocab.json", "merges.txt"}) fs::copy_file(kLlama3 / file, dir / file);
    std::map<std::string, headscope::io::Tensor> t;
    auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
        headscope::io::Tensor& x = t[name];
        x.shape = shape;
        x.data.resize(static_cast<std::size_t>(x.size()));
        for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = 0.05f * float(std::sin(0.37 * double(i)));
    };
    add("model.embed_tokens.weight", {16, d});
    add("model.layers.0.input_layernorm.weight", {d});
    add("model.layers.0.post_attention_layernorm.weight", {d});
    add("model.layers.0.self_attn.q_proj.weight", {q, d});
    add("model.layers.0.self_attn.k_proj.weight", {16, d});
    add("model.layers.0.self_attn.v_proj.weight", {16, d});
    add("model.layers.0.self_attn.o_proj.weight", {d, q});
    add("model.layers.0.mlp.gate_proj.weight", {16, d});
    add("model.layers.0.mlp.up_proj.weight", {16, d});
    add("model.layers.0.mlp.down_proj.weight", {d, 16});
    add("model.norm.weight", {d});
    headscope::io::writeSafetensors((dir / "model.safetensors").string(), t);
}

std::uintmax_t bytesUnder(const fs::path& dir) {
    std::uintmax_t total = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) total += entry.file_size();
    return total;
}

}  // namespace

// The 2 GiB guard of `model --out` counts every file, W_QK(Delta) included, before writing any.
TEST(CliDelta, ModelOutGuardCountsTheRotatedCircuits) {
    // 35 heads of d_model 1024 on one token: per head W_QK, W_OV and W_QK(0), each 2^20 values, in
    // csv (at most 16 bytes a value) and npy (4): 35 * 3 * 2^20 * 20 bytes = 2100 MiB, just above
    // 2 GiB; without the W_QK(Delta) files it would be 1400 MiB, below.
    TempDir root, out;
    writeWideLlama(root.path / "wide", 35);
    const CliResult r = runCli({"model", "--checkpoint", (root.path / "wide").string(), "--ids", "1", "--out", out.str(),
                                "--format", "csv,npy", "--delta", "0"});
    expectOneLineRefusal(r, "more than 2 GiB");
    EXPECT_THAT(r.err, HasSubstr("twice with --delta"));
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(fs::is_empty(out.path)) << "a refused command wrote files";
}

// What the guard counts for a layer bounds what is written, and the W_QK(Delta) files are counted:
// on the committed rotary folder (npy: 4 bytes a value, headers of 128) the files written exceed
// the count without them.
TEST(CliDelta, ModelOutGuardBoundsTheBytesWritten) {
    TempDir out;
    const CliResult r = runCli({"model", "--checkpoint", kLlama3.string(), "--ids", "3,1,4,1,5,9,2", "--out", out.str(),
                                "--format", "npy", "--delta", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    const headscope::model::ModelPtr m = headscope::io::loadCheckpoint(kLlama3.string());
    const std::vector<headscope::io::MatrixFormat> formats = {headscope::io::MatrixFormat::Npy};
    const double written = double(bytesUnder(out.path));
    const double layers = m->config.n_layer;
    EXPECT_LE(written, layers * headscope::cli::modelOutputLayerBytes(m->config, 7, true, formats, true));
    EXPECT_GT(written, layers * headscope::cli::modelOutputLayerBytes(m->config, 7, true, formats, false));
}
