// --delta N (issue 22 item 4): `model --out` on the committed rotary Llama 3 folder writes each
// head's W_QK,i(Delta) equal to core's W_i^Q M(Delta) (W_g^K)^T, and its W_QK pictures name the
// Delta; a Delta outside the input and any Delta on a model without rotary positions are one
// line each with exit status 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "CliRunner.h"
#include "RotaryCircuits.h"
#include "io/Checkpoint.h"
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
