// headscope-cli info / export / bench and its argument errors, run as a user runs them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "Analysis.h"
#include "CliRunner.h"
#include "io/Npy.h"

#include <sys/wait.h>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using nlohmann::json;

namespace {
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST(Info, JsonHasTheContractKeysAndTheClosedForms) {
    const CliResult r = runCli({"info", "--d-model", "96", "--heads", "6", "--text", "a b c d e", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["d_model"], 96);
    EXPECT_EQ(j["heads"], 6);
    EXPECT_EQ(j["d_k"], 16);
    EXPECT_EQ(j["d_v"], 16);
    EXPECT_EQ(j["kv_heads"], 6);
    EXPECT_EQ(j["seq_len"], 5);
    EXPECT_EQ(j["params"]["qk_factored"], 2 * 96 * 16);
    EXPECT_EQ(j["params"]["qk_merged"], 96 * 96);
    EXPECT_EQ(j["params"]["total"], 4 * 96 * 96 + 4 * 96);
    EXPECT_EQ(j["flops"]["logits_factored"], 2 * 5 * 96 * 16 + 5 * 5 * 16);
    EXPECT_EQ(j["flops"]["logits_merged"], 5 * 96 * 96 + 5 * 5 * 96);
    ASSERT_EQ(j["per_head"].size(), 6u);
    for (const auto& head : j["per_head"]) {
        EXPECT_EQ(head["qk_rank"], 16);
        EXPECT_EQ(head["ov_rank"], 16);
        EXPECT_EQ(head["logits_rank"], 5);  // at most min(n_q, n_kv, d_k)
        EXPECT_EQ(head["qk_singular_values"].size(), 16u);
        EXPECT_EQ(head["ov_singular_values"].size(), 16u);
    }
    EXPECT_LT(j["equivalence"]["fused_vs_per_head"].get<double>(), 1e-4);
    EXPECT_LT(j["equivalence"]["factored_vs_merged"].get<double>(), 1e-4);
    // The same numbers the engine gives.
    headscope::Config c;
    c.d_model = 96;
    c.heads = 6;
    c.text = "a b c d e";
    const auto a = headscope::analyze(c, false);
    EXPECT_DOUBLE_EQ(j["per_head"][2]["qk_singular_values"][0].get<double>(), a.spectra[2].qk.singular_values(0));
}

TEST(Info, TextOutputNamesTheRanks) {
    const CliResult r = runCli({"info"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("rank W_QK <= min(d_k, d_model) = 8"));
    EXPECT_THAT(r.out, HasSubstr("equivalence"));
}

// `info` must start fast: headscope-cli loads QtCore alone and becomes headscope-cli-widgets
// only for the commands that draw.
TEST(Info, LoadsNoneOfQtsGuiLibraries) {
    // The dynamic loader lists what it would load and runs nothing (this is how ldd works).
    const CliResult r = runProgram(HEADSCOPE_CLI, {}, "LD_TRACE_LOADED_OBJECTS=1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("libQt6Core"));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("libQt6Gui")));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("libQt6Widgets")));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("qcustomplot")));
}

TEST(Info, DrawingCommandsNeedTheWidgetsProgramBesideIt) {
    const TempDir alone;
    const fs::path cli = alone.path / "headscope-cli";
    fs::copy_file(HEADSCOPE_CLI, cli);
    const CliResult info = runProgram(cli.string(), {"info", "--json"});
    ASSERT_EQ(info.status, 0) << info.err;
    EXPECT_EQ(json::parse(info.out)["d_model"], 64);
    const CliResult out = runProgram(cli.string(), {"export", "--out", (alone.path / "pictures").string()});
    EXPECT_EQ(out.status, 2);
    EXPECT_EQ(lines(out.err), 1) << out.err;
    EXPECT_THAT(out.err, HasSubstr("headscope-cli: cannot run 'export': "));
    EXPECT_THAT(out.err, HasSubstr("'" + (alone.path / "headscope-cli-widgets").string() + "': No such file"));
    EXPECT_FALSE(fs::exists(alone.path / "pictures"));
    // Beside it (the build directory), the same command runs there and draws.
    const TempDir pictures;
    const CliResult drawn = runCli({"export", "--out", pictures.str(), "--format", "png"});
    ASSERT_EQ(drawn.status, 0) << drawn.err;
    EXPECT_TRUE(fs::exists(pictures.path / "attention_weights.png"));
}

TEST(Arguments, ImpossibleDimensionsAreOneClearLineAndStatus2) {
    const CliResult r = runCli({"info", "--d-model", "100", "--heads", "8"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("d_model 100 is not divisible by 8 heads"));
    EXPECT_TRUE(r.out.empty());
}

TEST(Arguments, BadValuesAndUnknownThingsAreRefused) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"info", "--heads", "abc"},
             {"info", "--heads", "0"},
             {"info", "--heads", "99999999999999"},
             {"info", "--temperature", "nan"},
             {"info", "--mask", "diagonal"},
             {"info", "--text", "x", "--seq-len", "4"},
             {"info", "--bogus"},
             {"info", "--kv-heads", "3"},
             {"info", "--d-model", "4096", "--heads", "128", "--seq-len", "8192"},
             {"info", "--session", "/nonexistent/s.headscope.json"},
             {"frobnicate"},
             {}}) {
        const CliResult r = runCli(args);
        EXPECT_EQ(r.status, 2) << (args.empty() ? "" : args.back());
        EXPECT_GE(lines(r.err), 1);
    }
    // A command name is quoted: one line, whatever it holds.
    const CliResult r = runCli({"fr\nob" + std::string(5000, 'x')});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("unknown command 'fr\\nob"));
    EXPECT_LT(r.err.size(), 400u);
}

TEST(Arguments, RangeMessagesNameTheRealLimits) {
    const CliResult r = runCli({"info", "--heads", "0"});
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("choose 1 to 128"));
    EXPECT_THAT(runCli({"info", "--rank-rtol", "abc"}).err, HasSubstr("expects a number"));
    EXPECT_THAT(runCli({"info", "--temperature", "1e-300"}).err, HasSubstr("between 0.001 and 1000"));
}

TEST(Arguments, OutputThatCannotBeWrittenIsAnError) {
    // stdout on a full disk: the JSON cannot be written, which must not pass for success.
    TempDir dir;
    const std::string err = (dir.path / "err").string();
    const int raw = std::system(("env -u DISPLAY -u WAYLAND_DISPLAY '" + std::string(HEADSCOPE_CLI) +
                                 "' info --json > /dev/full 2> '" + err + "'").c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 2);
    EXPECT_THAT(readFile(err), HasSubstr("cannot write the output"));
    EXPECT_EQ(lines(readFile(err)), 1);
}

TEST(Export, RefusesToFillADisk) {
    TempDir out;
    const CliResult r = runCli({"export", "--d-model", "4096", "--heads", "128", "--seq-len", "4", "--out", out.str(),
                                "--format", "csv"});
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("GiB"));
    EXPECT_TRUE(fs::is_empty(out.path));
}

TEST(Export, MatricesAreTheEnginesNumbers) {
    TempDir out;
    const CliResult r = runCli({"export", "--d-model", "32", "--heads", "4", "--text", "one two three", "--mask",
                                "causal", "--out", out.str(), "--format", "csv,npy"});
    ASSERT_EQ(r.status, 0) << r.err;
    headscope::Config c;
    c.d_model = 32;
    c.heads = 4;
    c.text = "one two three";
    c.mask = headscope::MaskKind::Causal;
    const auto a = headscope::analyze(c, false);
    using headscope::io::readNpy;
    using headscope::io::toMatrix;
    EXPECT_EQ(toMatrix(readNpy((out.path / "W_Q.npy").string())), a.weights().W_Q);
    EXPECT_EQ(toMatrix(readNpy((out.path / "W_O.npy").string())), a.weights().W_O);
    EXPECT_EQ(toMatrix(readNpy((out.path / "X.npy").string())), a.input.query.X);
    for (int i = 0; i < 4; ++i) {
        const std::string head = "head_" + std::to_string(i) + "_";
        EXPECT_EQ(toMatrix(readNpy((out.path / (head + "weights.npy")).string())), a.results.heads[i].weights);
        EXPECT_EQ(toMatrix(readNpy((out.path / (head + "W_QK.npy")).string())), headscope::mergedQK(a.weights(), i));
        EXPECT_TRUE(fs::exists(out.path / (head + "logits.csv")));
    }
    const std::string csv = readFile(out.path / "head_0_logits.csv");
    EXPECT_THAT(csv, HasSubstr("-inf"));  // causal mask, stated as such
    EXPECT_EQ(readFile(out.path / "tokens.txt"), "one\ntwo\nthree\n");
}

TEST(Export, ImagesWithoutADisplay) {
    TempDir out;
    const CliResult r = runCli({"export", "--heads", "4", "--out", out.str(), "--format", "png,svg,pdf"});
    ASSERT_EQ(r.status, 0) << r.err;
    int images = 0;
    for (const auto& entry : fs::directory_iterator(out.path)) {
        const std::string ext = entry.path().extension().string();
        const std::string bytes = readFile(entry.path());
        if (ext == ".png") { EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n"); }
        if (ext == ".pdf") { EXPECT_EQ(bytes.substr(0, 4), "%PDF"); }
        if (ext == ".svg") { EXPECT_THAT(bytes, HasSubstr("<svg")); }
        EXPECT_GT(bytes.size(), 1000u) << entry.path();
        ++images;
    }
    EXPECT_GE(images, 3);
}

TEST(Export, UnknownFormatAndUnwritableDirectory) {
    TempDir out;
    EXPECT_EQ(runCli({"export", "--out", out.str(), "--format", "bmp"}).status, 2);
    const CliResult r = runCli({"export", "--out", "/proc/headscope-cannot-write", "--format", "npy"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(Session, CliReadsASessionFile) {
    TempDir dir;
    writeFile(dir.path / "s.headscope.json",
              R"({"format": "headscope-session", "version": 1, "d_model": 24, "heads": 3, "text": "hello there"})");
    const CliResult r = runCli({"info", "--json", "--session", (dir.path / "s.headscope.json").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["d_model"], 24);
    EXPECT_EQ(j["d_k"], 8);
    EXPECT_EQ(j["seq_len"], 2);
}

TEST(Bench, QuickJsonReportsEveryFigureConsistently) {
    // A smoke run (--quick: small geometries, one run each, about a second): every figure
    // exists, is a real measurement, and the derived figures follow from the measured ones.
    // No timing is asserted. The full bench is `headscope-cli bench`, run by hand.
    const CliResult r = runCli({"bench", "--json", "--quick"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_GE(j["cores"].get<int>(), 1);
    for (const char* geometry : {"bert_base", "large"}) {
        SCOPED_TRACE(geometry);
        const json& g = j[geometry];
        for (const char* key : {"forward_ms", "spectra_ms", "forward_plus_spectra_ms", "naive_spectra_ms",
                                "spectra_speedup", "peak_memory_mib"})
            EXPECT_GT(g[key].get<double>(), 0.0) << key;
        EXPECT_EQ(g["runs"], 1);
        EXPECT_EQ(g["naive_runs"], 1);
        // One run: each median is that run, so forward + spectra is their sum exactly.
        EXPECT_DOUBLE_EQ(g["forward_plus_spectra_ms"].get<double>(),
                         g["forward_ms"].get<double>() + g["spectra_ms"].get<double>());
        EXPECT_DOUBLE_EQ(g["spectra_speedup"].get<double>(),
                         g["naive_spectra_ms"].get<double>() / g["spectra_ms"].get<double>());
        EXPECT_GE(g["naive_heads_timed"].get<int>(), 1);
        EXPECT_LE(g["naive_heads_timed"].get<int>(), g["heads"].get<int>());
        // The floors: the forward's multiply-adds at this run's sgemm rates, one core times the
        // threads and every core at once, and the times over them.
        for (const char* key : {"forward_multiply_adds", "gemm_gflops_per_core", "floor_ms", "gemm_gflops_all_cores",
                                "all_cores_floor_ms"})
            EXPECT_GT(g[key].get<double>(), 0.0) << key;
        const double forward = g["forward_ms"].get<double>(), both = g["forward_plus_spectra_ms"].get<double>();
        const double all_cores_floor = g["all_cores_floor_ms"].get<double>();
        EXPECT_NEAR(all_cores_floor,
                    2 * g["forward_multiply_adds"].get<double>() / (g["gemm_gflops_all_cores"].get<double>() * 1e9) * 1e3,
                    1e-12 * all_cores_floor);
        EXPECT_DOUBLE_EQ(g["forward_over_floor"].get<double>(), forward / g["floor_ms"].get<double>());
        EXPECT_DOUBLE_EQ(g["forward_plus_spectra_over_floor"].get<double>(), both / g["floor_ms"].get<double>());
        EXPECT_DOUBLE_EQ(g["forward_over_all_cores_floor"].get<double>(), forward / all_cores_floor);
        EXPECT_DOUBLE_EQ(g["forward_plus_spectra_over_all_cores_floor"].get<double>(), both / all_cores_floor);
    }
    // The new-weights update at the small BERT-base geometry, back to back and after a pause.
    const json& update = j["new_weights_update"];
    EXPECT_EQ(update["d_model"], j["bert_base"]["d_model"]);
    EXPECT_EQ(update["tokens"], 16);
    EXPECT_EQ(update["runs"], 3);
    EXPECT_EQ(update["pause_ms"], 50);
    for (const char* when : {"back_to_back", "after_pause"}) {
        SCOPED_TRACE(when);
        const double total = update[std::string(when) + "_ms"].get<double>();
        const double weights = update[std::string(when) + "_weights_ms"].get<double>();
        EXPECT_GT(weights, 0.0);
        EXPECT_GT(total, 0.0);
        EXPECT_LE(weights, total);  // each sample's weights are part of its update, so their medians are too
    }
    EXPECT_DOUBLE_EQ(update["after_pause_over_back_to_back"].get<double>(),
                     update["after_pause_ms"].get<double>() / update["back_to_back_ms"].get<double>());
    EXPECT_EQ(j["bert_base"]["d_model"], 96);
    EXPECT_EQ(j["large"]["heads"], 5);
    EXPECT_LE(j["bert_base"]["peak_memory_mib"].get<double>(), j["large"]["peak_memory_mib"].get<double>());
    EXPECT_EQ(j["gui_runs"], 1);
    EXPECT_GT(j["gui_update_ms"].get<double>(), 0.0);
    EXPECT_GT(j["gui_update_same_weights_ms"].get<double>(), 0.0);
    EXPECT_GT(j["gui_longest_stall_ms"].get<double>(), 0.0);
    // Both drags show analyses (at least the last change of each), each with its latency.
    for (const char* drag : {"gui_drag", "gui_paced_drag"}) {
        EXPECT_GE(j[std::string(drag) + "_updates"].get<int>(), 1) << drag;
        EXPECT_GT(j[std::string(drag) + "_update_ms"].get<double>(), 0.0) << drag;
    }
    // The stage breakdown of a new seed: every stage, each a time.
    for (const char* stage : {"weights", "input", "forward", "spectra", "equivalence_background", "grid_replot",
                              "spectrum_replot", "status_line", "analysis_ready", "window_repaint"}) {
        ASSERT_TRUE(j["gui_stages_ms"].contains(stage)) << stage;
        EXPECT_GE(j["gui_stages_ms"][stage].get<double>(), 0.0) << stage;
    }
    EXPECT_GT(j["gui_stages_ms"]["analysis_ready"].get<double>(), 0.0);
    // The heatmaps of a new seed come before the whole update is done.
    EXPECT_GT(j["gui_first_paint_ms"].get<double>(), 0.0);
    EXPECT_LE(j["gui_first_paint_ms"].get<double>(), j["gui_update_ms"].get<double>());
    // The app's own frame (dirty widgets) comes before the bench's whole-window repaint.
    EXPECT_GT(j["gui_frame_ms"].get<double>(), 0.0);
    EXPECT_LE(j["gui_frame_ms"].get<double>(), j["gui_update_ms"].get<double>());
    EXPECT_GT(j["gui_frame_same_weights_ms"].get<double>(), 0.0);
    EXPECT_LE(j["gui_frame_same_weights_ms"].get<double>(), j["gui_update_same_weights_ms"].get<double>());
}

// `<command> --help` (issue 21: `headscope-cli-widgets export --help` said "Unknown option
// 'help'" and exited 2): every command of both programs prints its own usage and exits 0,
// with no display (runCli unsets it) and nothing on stderr.
TEST(Help, EveryCommandOfBothProgramsAnswersHelp) {
    const std::string widgets =
        (std::filesystem::path(HEADSCOPE_CLI).parent_path() / "headscope-cli-widgets").string();
    for (const std::string& program : {std::string(HEADSCOPE_CLI), widgets}) {
        for (const std::string command : {"info", "export", "run", "model", "lesson", "bench"}) {
            for (const std::string flag : {"--help", "-h"}) {
                const CliResult r = runProgram(program, {command, flag});
                SCOPED_TRACE(program + " " + command + " " + flag);
                EXPECT_EQ(r.status, 0) << r.err;
                EXPECT_EQ(r.err, "");
                EXPECT_THAT(r.out, HasSubstr("usage: headscope-cli " + command + " [options]"));
                EXPECT_THAT(r.out, HasSubstr("  " + command + " "));  // its own line of the usage
            }
        }
        // After other options too, and config options listed where the command takes them.
        const CliResult r = runProgram(program, {"export", "--heads", "4", "--help"});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_THAT(r.out, HasSubstr("config options: --d-model N --heads H"));
    }
    // An unknown command stays an error, help or not.
    EXPECT_EQ(runCli({"nonsense", "--help"}).status, 2);
}

// Issue 36: the usage names every option each command's parser takes (export's --head, train's
// --weight-decay, --warmup and --init-std were missing) and says what run does.
TEST(Help, UsageNamesEveryOptionOfEachCommand) {
    const std::string usage = runCli({"--help"}).out;
    const std::map<std::string, std::vector<std::string>> options = {
        {"export", {"--out", "--format", "--scale", "--head", "--delta"}},
        {"run", {"--weights", "--heads", "--query", "--key-value", "--mask", "--pad-keys", "--prefix", "--format", "--out"}},
        {"model", {"--checkpoint", "--revision", "--text", "--ids", "--layer", "--mask", "--temperature", "--ablate",
                   "--ablate-mode", "--json", "--out", "--attention-only", "--format", "--scale", "--delta", "--cache-layers"}},
        {"train", {"--layers", "--d-model", "--heads", "--vocab", "--context", "--min-repeat", "--max-repeat",
                   "--fixed-repeat", "--lr", "--weight-decay", "--warmup", "--init-std", "--batch", "--steps", "--seed",
                   "--mlp", "--tied", "--random-start", "--two-copies", "--eval-every", "--out", "--json"}},
        {"bench", {"--json", "--runs", "--no-gui", "--gui-only", "--models-only", "--quick", "--cache-layers", "--write-model",
                   "--model-dir"}}};
    // The option as a whole word: "--head" is not found in "--heads".
    const auto names = [](const std::string& text, const std::string& name) {
        for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
            const char next = at + name.size() < text.size() ? text[at + name.size()] : ' ';
            if (!std::isalnum(static_cast<unsigned char>(next)) && next != '-') return true;
        }
        return false;
    };
    for (const auto& [command, list] : options) {
        const std::string own = runCli({command, "--help"}).out;
        for (const std::string& name : list) {
            EXPECT_TRUE(names(usage, name)) << command << " " << name << " in headscope-cli --help";
            EXPECT_TRUE(names(own, name)) << command << " " << name << " in " << command << " --help";
        }
    }
    EXPECT_THAT(usage, HasSubstr("your own PyTorch nn.MultiheadAttention"));
}
