// `headscope-cli model --ablate`: the log-probability of each actual next token against
// PyTorch's logits (tests/data/gpt2), before and after knocking heads out, the induction
// model forgetting how to continue (../shared/models, skipped without), and bad values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "io/Npy.h"
#include "CliExpect.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using headscope::test::kTinyGpt2;
using ::testing::HasSubstr;

namespace {

const fs::path kInduction = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / "induction";
const std::vector<int> kIds = {11, 10, 2, 10, 11, 10, 9, 8, 6};
const std::string kIdList = "11,10,2,10,11,10,9,8,6";

nlohmann::json modelJson(std::vector<std::string> extra) {
    std::vector<std::string> args = {"model", "--checkpoint", kTinyGpt2.string(), "--ids", kIdList, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = runCli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(CliAblate, TokenLogProbsMatchPyTorchsLogSoftmaxAndAverageToTheLoss) {
    const auto j = modelJson({});
    const auto logits = headscope::io::readNpy((kTinyGpt2 / "expected_logits.npy").string());  // (n, vocab), PyTorch
    const std::size_t vocab = static_cast<std::size_t>(logits.shape[1]);
    const auto& lp = j["token_logprobs"];
    ASSERT_EQ(lp.size(), kIds.size() - 1);
    double worst = 0, sum = 0;
    for (std::size_t p = 1; p < kIds.size(); ++p) {
        const auto& t = lp[p - 1];
        EXPECT_EQ(t["position"], p);
        EXPECT_EQ(t["id"], kIds[p]);
        EXPECT_TRUE(t["token"].is_string());
        const float* row = logits.data.data() + (p - 1) * vocab;  // logits at p - 1 predict p
        double top = row[0], z = 0;
        for (std::size_t v = 0; v < vocab; ++v) top = std::max(top, double(row[v]));
        for (std::size_t v = 0; v < vocab; ++v) z += std::exp(row[v] - top);
        const double expected = row[kIds[p]] - top - std::log(z);
        worst = std::max(worst, std::abs(t["logprob"].get<double>() - expected));
        sum += t["logprob"].get<double>();
    }
    std::printf("token log-probabilities vs PyTorch's log-softmax: max |difference| = %.3g\n", worst);
    EXPECT_LT(worst, 1e-4);
    EXPECT_NEAR(j["loss"].get<double>(), -sum / double(kIds.size() - 1), 1e-12);
    EXPECT_EQ(j["ablated"], nlohmann::json::array());
    EXPECT_FALSE(j.contains("before"));
    EXPECT_EQ(j["direct_attribution"]["heads"].size(), 2u);
}

TEST(CliAblate, AblateShowsBeforeAndAfterAndTheHeadsOff) {
    const auto intact = modelJson({});
    const auto j = modelJson({"--ablate", "1.1, 0.0", "--ablate-mode", "mean"});
    EXPECT_EQ(j["ablated"], nlohmann::json::parse(R"([{"layer":0,"head":0},{"layer":1,"head":1}])"));
    EXPECT_EQ(j["ablate_mode"], "mean");
    EXPECT_EQ(j["before"]["loss"], intact["loss"]);
    EXPECT_EQ(j["before"]["token_logprobs"], intact["token_logprobs"]);
    EXPECT_EQ(j["after"]["loss"], j["loss"]);
    EXPECT_NE(j["after"]["loss"], intact["loss"]);
    EXPECT_DOUBLE_EQ(j["loss_change"].get<double>(), j["loss"].get<double>() - intact["loss"].get<double>());
    // Mean ablation: head 1.1 writes its mean output, so its direct contribution moves but stays.
    EXPECT_NE(j["direct_attribution"]["heads"][1][1], intact["direct_attribution"]["heads"][1][1]);
    EXPECT_NE(j["direct_attribution"]["heads"][1][1], 0.0);
    // Zero ablation: it writes nothing; the same token and frozen scale as the intact run.
    const auto zero = modelJson({"--ablate", "1.1"});
    EXPECT_EQ(zero["ablate_mode"], "zero");
    EXPECT_EQ(zero["direct_attribution"]["heads"][1][1], 0.0);
    EXPECT_EQ(zero["direct_attribution"]["heads"][1][0], intact["direct_attribution"]["heads"][1][0]);
    EXPECT_EQ(zero["direct_attribution"]["scale"], intact["direct_attribution"]["scale"]);
}

TEST(CliAblate, InductionForgetsHowToContinueWithLayerOneOff) {
    if (!fs::exists(kInduction / "model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint " << kInduction << " is absent (it lives in ../shared/models)";
    const std::string text = "hdu tarlq hdu tarlq hdu tarlq hdu tarlq";
    const CliResult r = runCli({"model", "--checkpoint", kInduction.string(), "--text", text, "--ablate",
                                "1.0,1.1,1.2,1.3", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::printf("induction, layer 1 off: loss %.3f -> %.3f\n", j["before"]["loss"].get<double>(),
                j["after"]["loss"].get<double>());
    EXPECT_GT(j["loss_change"].get<double>(), 2.0);
    int right_before = 0, right_after = 0;
    // "hdu tarlq " is 10 tokens: the third and fourth copies are positions 20 to 38, entries 19 to 37.
    for (std::size_t i = 19; i < j["token_logprobs"].size(); ++i) {
        right_before += j["before"]["token_logprobs"][i]["top"].get<bool>();
        right_after += j["after"]["token_logprobs"][i]["top"].get<bool>();
    }
    EXPECT_EQ(right_before, 19);
    std::printf("right on the third and fourth copies: %d of 19 -> %d of 19\n", right_before, right_after);
    EXPECT_LT(right_after, 6);
    const CliResult text_report = runCli({"model", "--checkpoint", kInduction.string(), "--text", text, "--ablate", "1.1"});
    ASSERT_EQ(text_report.status, 0) << text_report.err;
    EXPECT_THAT(text_report.out, HasSubstr("heads off (zero ablation): 1.1"));
    EXPECT_THAT(text_report.out, HasSubstr("before -> after"));
}

TEST(CliAblate, BadValuesExitTwoWithOneLine) {
    const std::vector<std::string> base = {"model", "--checkpoint", kTinyGpt2.string(), "--ids", kIdList};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return runCli(args);
    };
    expectRefused(with({"--ablate", "2.0"}), "cannot knock out head 2.0: the model has layers 0 to 1");
    expectRefused(with({"--ablate", "0.5"}), "each layer has heads 0 to 1");
    expectRefused(with({"--ablate", "one"}), "'one' is not a head: write LAYER.HEAD");
    expectRefused(with({"--ablate", ","}), "no head given");
    expectRefused(with({"--ablate", "0.0", "--ablate-mode", "half"}), "--ablate-mode must be zero or mean");
    expectRefused(with({"--ablate-mode", "mean"}), "--ablate-mode needs --ablate");
}

// `info --ablate` on generated weights (one layer, no vocabulary): the output change per position
// is what the heads off wrote, so with every head off in zero mode it is the output minus b_O,
// whose norm `info` cannot print directly; checked instead through the relations that hold
// exactly: change = 0 where nothing changes, max_change = max(change_norm), relative change
// within [0, ...), the other heads untouched, and both modes differ.
TEST(CliAblate, InfoAblateShowsTheLayerOutputChange) {
    const auto info = [](std::vector<std::string> extra) {
        std::vector<std::string> args = {"info", "--heads", "4", "--d-model", "32", "--seed", "5", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const CliResult r = runCli(args);
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out);
    };
    const nlohmann::json plain = info({});
    EXPECT_FALSE(plain.contains("ablation"));
    const nlohmann::json zero = info({"--ablate", "3,1"});
    ASSERT_TRUE(zero.contains("ablation")) << zero.dump();
    const nlohmann::json& a = zero["ablation"];
    EXPECT_EQ(a["heads"], nlohmann::json({1, 3}));
    EXPECT_EQ(a["mode"], "zero");
    EXPECT_EQ(a["tokens"], plain["tokens"]);
    const std::vector<double> change = a["change_norm"], norm = a["output_norm"];
    ASSERT_EQ(change.size(), plain["tokens"].size());
    EXPECT_EQ(norm.size(), change.size());
    EXPECT_DOUBLE_EQ(double(a["max_change"]), *std::max_element(change.begin(), change.end()));
    EXPECT_GT(double(a["max_change"]), 0.0);
    EXPECT_GT(double(a["relative_change"]), 0.0);
    EXPECT_EQ(double(a["other_heads_max_difference"]), 0.0);
    const nlohmann::json mean = info({"--ablate", "1,3", "--ablate-mode", "mean"});
    EXPECT_EQ(mean["ablation"]["mode"], "mean");
    EXPECT_NE(mean["ablation"]["change_norm"], a["change_norm"]);
    EXPECT_EQ(mean["ablation"]["output_norm"], a["output_norm"]);
    // Text: a line per position and the summary.
    const CliResult text = runCli({"info", "--heads", "4", "--d-model", "32", "--ablate", "2"});
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_THAT(text.out, HasSubstr("heads 2 knocked out (zero)"));
    EXPECT_THAT(text.out, HasSubstr("largest change"));
    expectRefused(runCli({"info", "--heads", "4", "--ablate", "4"}), "the layer has heads 0 to 3");
    expectRefused(runCli({"info", "--heads", "4", "--ablate", "1.0"}), "single layer");
    expectRefused(runCli({"info", "--ablate-mode", "mean"}), "--ablate-mode needs --ablate");
    expectRefused(runCli({"info", "--ablate", "1", "--ablate-mode", "half"}), "zero or mean");
}
