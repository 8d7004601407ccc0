// headscope-cli train: a tiny fast run prints the curves as JSON, saves a GPT-2 folder that
// `model` opens, gives the same numbers for a seed, and refuses bad values with one line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "CliRunner.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const std::vector<std::string> kTiny = {"train", "--layers", "2", "--d-model", "16", "--heads", "2", "--vocab", "20",
                                        "--context", "16", "--min-repeat", "3", "--max-repeat", "8", "--batch", "8",
                                        "--steps", "40", "--eval-every", "10", "--seed", "3"};

std::vector<std::string> with(std::vector<std::string> arguments, const std::vector<std::string>& more) {
    arguments.insert(arguments.end(), more.begin(), more.end());
    return arguments;
}

TEST(Train, JsonCurvesAndAFolderThatModelOpens) {
    const TempDir dir;
    const CliResult r = runCli(with(kTiny, {"--out", dir.str(), "--json"}));
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["evaluations"].size(), 5u) << "steps 0, 10, 20, 30, 40";
    EXPECT_EQ(j["evaluations"][4]["step"], 40);
    EXPECT_TRUE(j["evaluations"][0]["train_loss"].is_null()) << "no batch before step 0";
    EXPECT_EQ(j["evaluations"][4]["previous_token"].size(), 4u) << "2 layers x 2 heads";
    EXPECT_EQ(j["evaluations"][4]["prefix_matching"].size(), 4u);
    EXPECT_NEAR(double(j["evaluations"][0]["loss"]), std::log(20.0), 0.15) << "untrained: near uniform";
    EXPECT_LT(double(j["evaluations"][4]["loss"]), double(j["evaluations"][0]["loss"]));
    EXPECT_EQ(j["config"]["parameters"], 16 * 20 * 2 + 16 * 16 + 2 * (2 * 16 + 16 * 48 + 48 + 16 * 16 + 16) + 2 * 16)
        << "wte, wpe, lm_head; per layer ln_1, c_attn, c_proj; ln_f";
    for (const char* file : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        EXPECT_TRUE(fs::exists(dir.path / file)) << file;

    const CliResult model = runCli({"model", "--checkpoint", dir.str(), "--text", "abcdefabcde", "--json"});
    ASSERT_EQ(model.status, 0) << model.err;
    const nlohmann::json m = nlohmann::json::parse(model.out);
    EXPECT_EQ(m["ids"], (std::vector<int>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4}));
    EXPECT_EQ(m["model"]["n_layer"], 2);

    // The same seed, the same curves.
    const TempDir again;
    const CliResult r2 = runCli(with(kTiny, {"--out", again.str(), "--json"}));
    ASSERT_EQ(r2.status, 0) << r2.err;
    EXPECT_EQ(nlohmann::json::parse(r2.out)["evaluations"], j["evaluations"]);
}

TEST(Train, TextTableAndHelp) {
    const TempDir dir;
    const CliResult r = runCli(with(kTiny, {"--out", dir.str(), "--fixed-repeat", "5"}));
    ASSERT_EQ(r.status, 2) << "--fixed-repeat with --min-repeat is refused";
    const CliResult t = runCli({"train", "--d-model", "16", "--context", "16", "--max-repeat", "8", "--vocab", "20",
                                "--batch", "4", "--steps", "20", "--eval-every", "10", "--out", dir.str()});
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_THAT(t.out, HasSubstr("L1H1 prev/ind"));
    EXPECT_THAT(t.out, HasSubstr("\n     20 "));
    const CliResult help = runCli({"train", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_THAT(help.out, HasSubstr("--fixed-repeat"));
}

TEST(Train, BadValuesAreOneLineAndStatus2) {
    const TempDir dir;
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--heads", "3"}, {"--layers", "9"}, {"--lr", "nan"}, {"--lr", "-1"},
          {"--context", "10"}, {"--vocab", "500"}, {"--steps", "x"}, {"--bogus"}}) {
        const CliResult r = runCli(with(with({"train", "--out", dir.str()}, bad), {}));
        EXPECT_EQ(r.status, 2) << bad[0];
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_THAT(r.err, HasSubstr("headscope-cli: "));
    }
    const CliResult no_out = runCli({"train", "--steps", "1"});
    EXPECT_EQ(no_out.status, 2);
    EXPECT_THAT(no_out.err, HasSubstr("--out"));
}

}  // namespace
