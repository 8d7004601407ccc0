// `headscope-cli run` against reference tensors made once by PyTorch's
// nn.MultiheadAttention (tests/data/make_mha_reference.py), and against hostile inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "common/AllClose.h"
#include "io/Npy.h"
#include "io/Safetensors.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kCases = fs::path(HEADSCOPE_TEST_DATA_DIR) / "mha";

CliResult runCase(const fs::path& dir, const std::string& out) {
    const auto spec = nlohmann::json::parse(readFile(dir / "case.json"));
    std::vector<std::string> args = {"run", "--weights", (dir / "weights.safetensors").string(), "--heads",
                                     std::to_string(spec["heads"].get<int>()), "--query", (dir / "query.npy").string(),
                                     "--mask", spec["mask"].get<std::string>(), "--out", out};
    if (spec["cross"].get<bool>()) args.insert(args.end(), {"--key-value", (dir / "key_value.npy").string()});
    if (!spec["prefix"].get<std::string>().empty()) args.insert(args.end(), {"--prefix", spec["prefix"]});
    return runCli(args);
}

}  // namespace

class RunMatchesPyTorch : public ::testing::TestWithParam<std::string> {};

// The largest differences measured against PyTorch are below 2e-7 (see test_mha_loader):
// 1e-6 catches any real mistake and leaves room only for summation order.
TEST_P(RunMatchesPyTorch, AttentionAndOutputWithin1e6) {
    const fs::path dir = kCases / GetParam();
    TempDir out;
    const CliResult r = runCase(dir, out.str());
    ASSERT_EQ(r.status, 0) << r.err;
    using headscope::io::readNpy;
    const headscope::io::Tensor attention = readNpy((out.path / "attention.npy").string());
    const headscope::io::Tensor expected_attention = readNpy((dir / "expected_attention.npy").string());
    const headscope::io::Tensor output = readNpy((out.path / "output.npy").string());
    const headscope::io::Tensor expected_output = readNpy((dir / "expected_output.npy").string());
    ASSERT_EQ(attention.shape, expected_attention.shape);
    ASSERT_EQ(output.shape, expected_output.shape);
    EXPECT_TRUE(headscope::test::allClose(attention.data, expected_attention.data, 1e-6, 0, attention.shape));
    EXPECT_TRUE(headscope::test::allClose(output.data, expected_output.data, 1e-6, 0, output.shape));
}

INSTANTIATE_TEST_SUITE_P(Cases, RunMatchesPyTorch,
                         ::testing::Values("self_small", "causal", "cross", "nobias_prefix", "separate_qkv"));

TEST(RunRejects, TruncatedSafetensors) {
    TempDir tmp;
    const std::string bytes = readFile(kCases / "self_small" / "weights.safetensors");
    writeFile(tmp.path / "cut.safetensors", bytes.substr(0, bytes.size() - 9));
    const CliResult r = runCli({"run", "--weights", (tmp.path / "cut.safetensors").string(), "--heads", "2", "--query",
                                (kCases / "self_small" / "query.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("headscope-cli: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(RunRejects, HeaderThatLiesAboutItsLength) {
    TempDir tmp;
    std::string bytes = readFile(kCases / "self_small" / "weights.safetensors");
    bytes[6] = '\x7f';  // header length ~ 2^55
    writeFile(tmp.path / "lie.safetensors", bytes);
    const CliResult r = runCli({"run", "--weights", (tmp.path / "lie.safetensors").string(), "--heads", "2", "--query",
                                (kCases / "self_small" / "query.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(RunRejects, NaNWeights) {
    TempDir tmp;
    auto tensors = headscope::io::readSafetensors((kCases / "self_small" / "weights.safetensors").string());
    tensors["in_proj_weight"].data[5] = std::numeric_limits<float>::quiet_NaN();
    headscope::io::writeSafetensors((tmp.path / "nan.safetensors").string(), tensors);
    const CliResult r = runCli({"run", "--weights", (tmp.path / "nan.safetensors").string(), "--heads", "2", "--query",
                                (kCases / "self_small" / "query.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("in_proj_weight"));
}

TEST(RunRejects, QueryOfTheWrongWidthAndHeadsThatDoNotDivide) {
    TempDir tmp;
    const std::string w = (kCases / "self_small" / "weights.safetensors").string();
    const CliResult wrong_width = runCli({"run", "--weights", w, "--heads", "2", "--query",
                                          (kCases / "cross" / "query.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(wrong_width.status, 2);
    EXPECT_THAT(wrong_width.err, HasSubstr("d_model"));
    const CliResult heads = runCli({"run", "--weights", w, "--heads", "3", "--query",
                                    (kCases / "self_small" / "query.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(heads.status, 2);
    EXPECT_THAT(heads.err, HasSubstr("head"));
}

TEST(RunRejects, TruncatedNpyAndMissingFiles) {
    TempDir tmp;
    const std::string q = readFile(kCases / "self_small" / "query.npy");
    writeFile(tmp.path / "cut.npy", q.substr(0, q.size() - 3));
    const std::string w = (kCases / "self_small" / "weights.safetensors").string();
    EXPECT_EQ(runCli({"run", "--weights", w, "--heads", "2", "--query", (tmp.path / "cut.npy").string(), "--out",
                      tmp.str()}).status, 2);
    const CliResult missing = runCli({"run", "--weights", (tmp.path / "none.safetensors").string(), "--heads", "2",
                                      "--query", (tmp.path / "cut.npy").string(), "--out", tmp.str()});
    EXPECT_EQ(missing.status, 2);
    EXPECT_THAT(missing.err, HasSubstr("none.safetensors"));
    EXPECT_EQ(runCli({"run", "--heads", "2"}).status, 2);
}

TEST(Run, WritesSpectraRanksAndThePicturesExportDraws) {
    // The layer seen without the GUI: every index 1..d_model of each head's W_QK and W_OV, the
    // rank table, and the pictures, named as `export` names them.
    TempDir tmp;
    const fs::path dir = kCases / "self_small";
    const CliResult r = runCli({"run", "--weights", (dir / "weights.safetensors").string(), "--heads", "2", "--query",
                                (dir / "query.npy").string(), "--out", tmp.str()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto weights = headscope::io::readSafetensors((dir / "weights.safetensors").string());
    const long d_model = weights.at("out_proj.weight").shape[0];
    const std::string spectra = readFile(tmp.path / "spectra.csv");
    EXPECT_EQ(std::count(spectra.begin(), spectra.end(), '\n'), 1 + 2 * 2 * d_model);  // header + qk/ov x heads x d_model
    EXPECT_THAT(readFile(tmp.path / "ranks.csv"), HasSubstr("head,rank_qk,bound_qk"));
    for (const char* picture : {"attention_weights.png", "spectrum_qk.png", "projections.png", "circuit_qk_head_0.png"})
        EXPECT_GT(fs::file_size(tmp.path / picture), 1000u) << picture;
}

TEST(Run, PaddedKeysGetNoAttention) {
    TempDir tmp;
    const fs::path dir = kCases / "self_small";
    const CliResult r = runCli({"run", "--weights", (dir / "weights.safetensors").string(), "--heads", "2", "--query",
                                (dir / "query.npy").string(), "--pad-keys", "0,2", "--format", "none", "--out", tmp.str()});
    ASSERT_EQ(r.status, 0) << r.err;
    const headscope::io::Tensor a = headscope::io::readNpy((tmp.path / "attention.npy").string());  // (h, n, n)
    const long n = a.shape[1];
    for (long h = 0; h < a.shape[0]; ++h)
        for (long q = 0; q < n; ++q) {
            EXPECT_EQ(a.data[std::size_t((h * n + q) * n + 0)], 0.0f);
            EXPECT_EQ(a.data[std::size_t((h * n + q) * n + 2)], 0.0f);
            EXPECT_GT(a.data[std::size_t((h * n + q) * n + 1)], 0.0f);
        }
    EXPECT_FALSE(fs::exists(tmp.path / "attention_weights.png"));  // --format none
    const CliResult bad = runCli({"run", "--weights", (dir / "weights.safetensors").string(), "--heads", "2", "--query",
                                  (dir / "query.npy").string(), "--pad-keys", "99", "--out", tmp.str()});
    EXPECT_EQ(bad.status, 2);
    EXPECT_THAT(bad.err, HasSubstr("pad-keys"));
}
