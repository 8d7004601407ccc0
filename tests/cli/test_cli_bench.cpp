// headscope-cli bench's GUI section: measured by the GUI program (headscope --bench) run beside
// it and printed in place, so that the command-line programs link no window. No timing is
// asserted: the figures are checked to be there (test_cli.cpp checks their JSON), not how fast.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "CliRunner.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

namespace {

int count(const std::string& text, const std::string& part) {
    int n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// headscope-cli and headscope-cli-widgets copied into a directory without the GUI program.
struct CliWithoutGui {
    TempDir dir;
    fs::path cli = dir.path / "headscope-cli";
    CliWithoutGui() {
        const fs::path built = fs::path(HEADSCOPE_CLI).parent_path();
        fs::copy_file(built / "headscope-cli", cli);
        fs::copy_file(built / "headscope-cli-widgets", dir.path / "headscope-cli-widgets");
    }
    std::string missing() const { return "'" + (dir.path / "headscope").string() + "' does not exist"; }
};

}  // namespace

TEST(Bench, TextPrintsTheGuiProgramsSectionInPlace) {
    const CliResult r = runCli({"bench", "--quick", "--gui-only"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::size_t header = r.out.find("HeadScope benchmark: medians");
    const std::size_t gui = r.out.find("\nGUI update, config change -> all views repainted (offscreen, d_model 768");
    ASSERT_NE(header, std::string::npos) << r.out;
    ASSERT_NE(gui, std::string::npos) << r.out;
    // --gui-only: no engine tables, not even their empty headers
    EXPECT_THAT(r.out, Not(HasSubstr("geometry   d_model")));
    EXPECT_THAT(r.out, Not(HasSubstr("floor = the forward's multiply-adds")));
    EXPECT_THAT(r.out, HasSubstr("median of 1: new seed (weights and spectra recomputed) "));
    EXPECT_THAT(r.out, HasSubstr("stages of a new seed (medians, ms): weights "));
    EXPECT_THAT(r.out, HasSubstr("during a 30-change drag (5 ms apart): longest GUI-thread stall "));
    EXPECT_THAT(r.out, HasSubstr(" after its change (median); changes 20 ms apart: "));
    EXPECT_THAT(r.out, Not(HasSubstr("not measured")));
    EXPECT_THAT(r.out, Not(HasSubstr("Training tab shown")));  // --quick: no training figure
}

TEST(Bench, WithoutTheGuiProgramSaysSoInOneLineAndPrintsTheRest) {
    const CliWithoutGui alone;
    const CliResult text = runProgram(alone.cli.string(), {"bench", "--quick"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_THAT(text.out, HasSubstr("\nbert_base       96"));  // the engine's figures
    EXPECT_THAT(text.out, HasSubstr("llama_1b checkpoint"));    // the models' figures
    EXPECT_THAT(text.out, Not(HasSubstr("GUI update, config change")));
    EXPECT_EQ(count(text.out, "GUI figures not measured: " + alone.missing()), 1) << text.out;
    const std::size_t line = text.out.find("GUI figures not measured");
    EXPECT_EQ(text.out.find('\n', line), text.out.size() - 1);  // one line, the last

    const CliResult j = runProgram(alone.cli.string(), {"bench", "--quick", "--gui-only", "--json"});
    ASSERT_EQ(j.status, 0) << j.err;
    const json figures = json::parse(j.out);
    EXPECT_THAT(figures["gui_error"].get<std::string>(), HasSubstr(alone.missing()));
    EXPECT_FALSE(figures.contains("gui_update_ms"));
    EXPECT_GE(figures["cores"].get<int>(), 1);
}

TEST(Bench, AFailingGuiProgramIsOneLineWithItsLastWordAndTheRestStays) {
    const CliWithoutGui alone;
    // A stand-in for the GUI program: fails with a message, or prints what is not JSON.
    const fs::path gui = alone.dir.path / "headscope";
    writeFile(gui, "#!/bin/sh\necho 'some warning' >&2\nfor a in \"$@\"; do [ \"$a\" = --json ] && { echo 'not json'; exit 0; }; done\n"
                   "echo 'headscope: the window showed no update' >&2\nexit 3\n");
    fs::permissions(gui, fs::perms::owner_all);
    const CliResult text = runProgram(alone.cli.string(), {"bench", "--quick", "--gui-only"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_EQ(count(text.out, "\nGUI figures not measured: headscope --bench failed (status 3): headscope: the window showed "
                              "no update\n"), 1) << text.out;
    EXPECT_THAT(text.out, HasSubstr("HeadScope benchmark: medians"));
    const CliResult j = runProgram(alone.cli.string(), {"bench", "--quick", "--gui-only", "--json"});
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_EQ(json::parse(j.out)["gui_error"], "headscope --bench printed no JSON object");
}

TEST(Bench, TheGuiProgramsBenchOptionsGoWithBenchAndRunAlone) {
    const std::string gui = (fs::path(HEADSCOPE_CLI).parent_path() / "headscope").string();
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"--runs", "3"}, {"--json"}, {"--bench", "--tab", "Heads"}, {"--bench", "--runs", "0"}}) {
        const CliResult r = runProgram(gui, arguments, "QT_QPA_PLATFORM=offscreen");
        SCOPED_TRACE(arguments.front());
        EXPECT_EQ(r.status, 2);
        EXPECT_THAT(r.err, HasSubstr("headscope: "));
        EXPECT_EQ(count(r.err, "headscope: "), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
}

// The model section (--quick: small geometries of the same shapes): every checkpoint the issues
// name, the encoders' forwards at their own lengths, each figure a measurement and the ratios
// following from them. No timing is asserted.
TEST(Bench, ModelsOnlyReportsEveryCheckpointsForwardAgainstItsFloor) {
    const CliResult r = runCli({"bench", "--models-only", "--quick", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    for (const char* name : {"gpt2_small", "llama_1b", "qwen3_0.6b", "gemma3_1b", "bert_base", "modernbert_base"})
        EXPECT_TRUE(j["models"].contains(name)) << name;
    EXPECT_EQ(j["models"]["llama_1b"]["forward_tokens"], 64);
    EXPECT_EQ(j["models"]["bert_base"]["forward_tokens"], 32);        // 128 in the full bench
    EXPECT_EQ(j["models"]["modernbert_base"]["forward_tokens"], 96);  // 512 in the full bench
    for (const char* name : {"bert_base", "modernbert_base"}) {
        SCOPED_TRACE(name);
        const json& m = j["models"][name];
        EXPECT_EQ(m["dtype"], "F32");
        for (const char* key : {"file_mib", "process_s", "process_peak_mib", "open_s", "forward_s", "gemm_floor_s", "forward_peak_mib"})
            EXPECT_GT(m[key].get<double>(), 0.0) << key;
        EXPECT_DOUBLE_EQ(m["forward_over_floor"].get<double>(), m["forward_s"].get<double>() / m["gemm_floor_s"].get<double>());
    }
    EXPECT_EQ(j["models"]["modernbert_base"]["layers"], 3);
}

// bench --write-model NAME --model-dir DIR keeps the bench's checkpoint, for timing the window on it:
// the folder opens as a model of that family and geometry and reads any text; a name the bench does not write, or no
// folder, is one sentence and nothing written.
TEST(Bench, WriteModelKeepsTheBenchsCheckpointInTheFolderNamed) {
    const TempDir dir;
    const fs::path llama = dir.path / "llama";
    const CliResult r = runCli({"bench", "--write-model", "llama_1b", "--quick", "--model-dir", llama.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("wrote llama_1b (--quick: small) into " + llama.string()));
    const CliResult model = runCli({"model", "--checkpoint", llama.string(), "--ids", "5,6,7", "--json"});
    ASSERT_EQ(model.status, 0) << model.err;
    const json j = json::parse(model.out);
    EXPECT_EQ(j["architecture"]["model_type"], "llama") << model.out;
    EXPECT_EQ(j["model"]["n_layer"], 2);
    EXPECT_EQ(j["model"]["n_head"], 4);
    EXPECT_EQ(j["model"]["dtype"], "BF16");
    // Its vocabulary spells every byte, so plain text reads too, as the bytes and merges it holds.
    const CliResult text = runCli({"model", "--checkpoint", llama.string(), "--text", "Hello, world!", "--json"});
    ASSERT_EQ(text.status, 0) << text.err;
    const json tokens = json::parse(text.out)["tokens"];
    std::string spelled;
    for (const json& t : tokens) spelled += t.get<std::string>();
    EXPECT_EQ(spelled, "Hello, world!") << text.out;

    const fs::path other = dir.path / "other";
    const CliResult unknown = runCli({"bench", "--write-model", "llama_7b", "--model-dir", other.string()});
    EXPECT_EQ(unknown.status, 2) << unknown.err;
    EXPECT_THAT(unknown.err, HasSubstr("no bench checkpoint called 'llama_7b': the bench writes gpt2_small, llama_1b, qwen3_0.6b, "
                                       "gemma3_1b, bert_base, modernbert_base"));
    EXPECT_EQ(count(unknown.err, "\n"), 1) << unknown.err;
    EXPECT_FALSE(fs::exists(other));
    const CliResult no_folder = runCli({"bench", "--write-model", "bert_base"});
    EXPECT_EQ(no_folder.status, 2);
    EXPECT_THAT(no_folder.err, HasSubstr("--write-model needs --model-dir DIR"));
}
