// headscope-cli bench: medians over repeated runs of the forward pass and of every head's
// W_QK / W_OV spectrum (thin-factor QR) against the naive full SVD of the d_model x d_model
// products, at BERT-base and at a large geometry; plus the GUI's update time, offscreen, measured
// by the GUI program (headscope --bench, app/GuiBench.h) and printed here in place.
#include <QProcess>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "Analysis.h"
#include "Parallel.h"
#include "Strings.h"
#include "cli/Arguments.h"
#include "cli/CommandLine.h"
#include "cli/Commands.h"
#include "cli/BenchCheckpoints.h"
#include "cli/GramBench.h"
#include "cli/PauseBench.h"
#include "cli/ModelBench.h"
#include "cli/ModelCacheOption.h"
#include "cli/TrainBench.h"

namespace headscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct GeometryFigures {
    std::string name;
    int d_model, heads, n, runs, naive_runs;
    int naive_heads;  // heads the naive baseline is timed on; its figure is scaled to all heads
    double forward_ms = 0, spectra_ms = 0, forward_plus_spectra_ms = 0, naive_spectra_ms = 0, peak_mib = 0;
    // The floor: the forward pass' multiply-adds at the GEMM rate measured in this run, on every core.
    double forward_multiply_adds = 0, gemm_gflops_per_core = 0, floor_ms = 0;
    // The same at the rate the cores reach running the sgemm all at once (noisier: every core must be free).
    double gemm_gflops_all_cores = 0, all_cores_floor_ms = 0;
    GramFigures gram = {};  // the spectra's largest cost against a GEMM of its multiply-adds, one thread
};

// The floor's sgemm: a plain Eigen product of the forward's projection shape, X (n, d) times
// W (d, d), timed one sample at a time, so that the all-cores samples can be taken between the
// timed runs whose floor they are. Rates are in GFLOP/s, one multiply-add counting as two
// operations.
class FloorGemm {
  public:
    FloorGemm(int n, int d) : flops_(2.0 * n * d * double(d)), repeats_(std::max(1, int(2e8 / flops_))) {
        for (int t = 0; t < workerThreads(); ++t) {  // a copy per thread: no sharing between cores
            x_.push_back(Eigen::MatrixXf::Random(n, d));
            w_.push_back(Eigen::MatrixXf::Random(d, d));
            y_.emplace_back(n, d);
        }
    }
    ~FloorGemm() {
        volatile float sink = y_[0](0, 0);  // keeps the products observable
        (void)sink;
    }

    // One core's rate: the products on the calling thread alone, once untimed first (the floor
    // is the rate with the matrices in the caches).
    double sampleOneCore() {
        products(0);
        const auto t0 = Clock::now();
        products(0);
        return flops_ * repeats_ / (msSince(t0) * 1e6);
    }

    // Every core's rate together: each worker thread runs its own copy at once. Below threads x
    // the single-core rate where the cores share execution units or memory bandwidth (SMT
    // siblings, a virtual machine's vCPUs).
    double sampleAllCores() {
        const int threads = int(y_.size());
        std::atomic<int> ready{0};
        std::atomic<bool> go{false};
        std::vector<std::thread> others;
        for (int t = 1; t < threads; ++t)
            others.emplace_back([&, t] {
                products(t);  // warm, untimed
                ++ready;
                while (!go) std::this_thread::yield();
                products(t);
            });
        products(0);
        while (ready < threads - 1) std::this_thread::yield();  // every thread warm: none begins late
        const auto t0 = Clock::now();
        go = true;
        products(0);
        for (auto& other : others) other.join();
        return flops_ * repeats_ * threads / (msSince(t0) * 1e6);
    }

  private:
    void products(int t) {
        for (int r = 0; r < repeats_; ++r) y_[t].noalias() = x_[t] * w_[t];
    }

    const double flops_;
    const int repeats_;  // products per sample: about 2 ms at 100 GFLOP/s, at least one
    std::vector<Eigen::MatrixXf> x_, w_, y_;
};

GeometryFigures measure(std::string name, int d_model, int heads, int n, int runs, int naive_runs, int naive_heads) {
    GeometryFigures g{std::move(name), d_model, heads, n, runs, naive_runs, naive_heads};
    Config c;
    c.d_model = d_model;
    c.heads = heads;
    c.text.clear();
    c.seq_len = n;
    const Weights w = makeWeights(c);
    const Input input = makeInput(c);
    const AttentionOptions options = AttentionOptions::from(c);
    std::vector<double> fwd, spec, both, naive, per_core, all_cores;
    volatile double sink = 0;  // keeps results observable
    // First as many runs untimed and the naive baseline, then the peak memory: what they need,
    // before the floor's matrices exist (they are not HeadScope's).
    for (int run = 0; run < runs + 1; ++run) {
        const Results r = forward(options, w, input.query.X, input.key_value.X);
        sink = sink + r.output(0, 0) + headSpectra(w)[0].qk.singular_values(0);
    }
    for (int run = 0; run < naive_runs; ++run) {
        const auto t0 = Clock::now();
        const auto s = naiveHeadSpectra(w, 0, naive_heads);
        naive.push_back(msSince(t0) * heads / naive_heads);
        sink = sink + s[0].qk.singular_values(0);
    }
    g.peak_mib = peakMemoryMiB();

    FloorGemm floor(n, d_model);
    for (int run = 0; run < runs + 1; ++run) {  // run 0 warms caches and thread pools
        // Every core's rate just before the run it is the floor of: both cores must be free at
        // once, and how often they are drifts within minutes on a shared machine.
        const double every_core = floor.sampleAllCores();
        const auto t0 = Clock::now();
        const Results r = forward(options, w, input.query.X, input.key_value.X);
        const double f = msSince(t0);
        const auto t1 = Clock::now();
        const auto s = headSpectra(w);
        const double sp = msSince(t1);
        sink = sink + r.output(0, 0) + s[0].qk.singular_values(0);
        if (run == 0) continue;
        fwd.push_back(f), spec.push_back(sp), both.push_back(f + sp);
        all_cores.push_back(every_core);
    }
    for (int sample = 0; sample < std::max(3, std::min(runs, 9)); ++sample) per_core.push_back(floor.sampleOneCore());
    g.forward_ms = median(fwd), g.spectra_ms = median(spec), g.forward_plus_spectra_ms = median(both);
    g.naive_spectra_ms = median(naive);
    const Cost cost = computeCost(c, n, n);
    g.forward_multiply_adds = double(cost.projection_flops) + double(cost.attention_flops_all_heads);
    g.gemm_gflops_per_core = median(per_core);
    const int threads = workerThreads();
    g.floor_ms = 2.0 * g.forward_multiply_adds / (g.gemm_gflops_per_core * 1e9 * threads) * 1e3;
    g.gemm_gflops_all_cores = median(all_cores);
    g.all_cores_floor_ms = 2.0 * g.forward_multiply_adds / (g.gemm_gflops_all_cores * 1e9) * 1e3;
    g.gram = measureGram(d_model, heads, std::max(3, std::min(runs, 9)));
    return g;
}

// The engine's tables: one row per geometry, then its GEMM floor.
void printGeometryTables(const std::vector<GeometryFigures>& figures) {
    std::printf("%-10s %7s %5s %6s %11s %11s %13s %11s %8s %9s\n", "geometry", "d_model", "heads", "n", "forward ms",
                "spectra ms", "fwd+spec ms", "naive ms", "speedup", "peak MiB");
    for (const auto& g : figures)
        std::printf("%-10s %7d %5d %6d %11.3f %11.3f %13.3f %11.1f %7.0fx %9.0f\n", g.name.c_str(), g.d_model,
                    g.heads, g.n, g.forward_ms, g.spectra_ms, g.forward_plus_spectra_ms, g.naive_spectra_ms,
                    g.naive_spectra_ms / g.spectra_ms, g.peak_mib);
    std::printf("naive = full SVD of every d_model x d_model product (large geometry: timed on 2 heads, "
                "scaled to 25)\n");
    std::printf("spectra: Gram by %s (HEADSCOPE_GRAM_KERNEL)\n", HEADSCOPE_GRAM_KERNEL ? "HeadScope's kernel" : "Eigen");
    for (const auto& g : figures)
        std::printf("%-10s Gram of every head's (%d, %d) W_Q factor, one thread: %.3f ms; Eigen's GEMM of the same "
                    "multiply-adds %.3f ms: %.2fx\n", g.name.c_str(), g.gram.rows, g.gram.cols, g.gram.gram_ms,
                    g.gram.gemm_ms, g.gram.gram_ms / g.gram.gemm_ms);
    std::printf("\n");
    std::printf("%-10s %14s %12s %10s %14s %18s\n", "floor", "multiply-adds", "GEMM GF/s", "floor ms",
                "forward/floor", "fwd+spectra/floor");
    for (const auto& g : figures)
        std::printf("%-10s %14.3g %12.1f %10.3f %14.2f %18.2f\n", g.name.c_str(), g.forward_multiply_adds,
                    g.gemm_gflops_per_core, g.floor_ms, g.forward_ms / g.floor_ms, g.forward_plus_spectra_ms / g.floor_ms);
    std::printf("floor = the forward's multiply-adds at this run's single-core sgemm rate, on %d threads\n",
                workerThreads());
    for (const auto& g : figures)
        std::printf("%-10s every core at once: %.1f GF/s in all (%.2fx one core), floor %.3f ms, forward/floor %.2f, "
                    "fwd+spectra/floor %.2f\n", g.name.c_str(), g.gemm_gflops_all_cores,
                    g.gemm_gflops_all_cores / g.gemm_gflops_per_core, g.all_cores_floor_ms,
                    g.forward_ms / g.all_cores_floor_ms, g.forward_plus_spectra_ms / g.all_cores_floor_ms);
}

// The GUI section of the bench, as `headscope --bench` printed it (text, or a JSON object of its
// keys), or why there is none.
struct GuiSection {
    std::string output, error;
};

GuiSection runGuiProgram(int runs, bool quick, bool json) {
    const std::string program = (executableDirectory(nullptr) / "headscope").string();
    const std::string name = "'" + program + "'";
    if (!std::filesystem::exists(program))
        return {{}, name + " does not exist (the GUI, headscope, measures these figures: build it beside headscope-cli)"};
    QStringList arguments{"--bench", "--runs", QString::number(runs)};
    if (quick) arguments << "--quick";
    if (json) arguments << "--json";
    QProcess child;
    child.start(QString::fromStdString(program), arguments);
    if (!child.waitForStarted(60000)) return {{}, name + " did not start: " + child.errorString().toStdString()};
    if (!child.waitForFinished(30 * 60 * 1000)) {
        child.kill();
        child.waitForFinished(10000);
        return {{}, "headscope --bench did not finish within 30 minutes"};
    }
    const std::string out = child.readAllStandardOutput().toStdString();
    const std::string why = QString::fromLocal8Bit(child.readAllStandardError()).trimmed().split('\n').last().toStdString();
    if (child.exitStatus() != QProcess::NormalExit) return {{}, "headscope --bench crashed"};
    if (child.exitCode() != 0)
        return {{}, "headscope --bench failed (status " + std::to_string(child.exitCode()) + ")" + (why.empty() ? "" : ": " + why)};
    if (json && !nlohmann::json::accept(out)) return {{}, "headscope --bench printed no JSON object"};
    return {out, {}};
}

}  // namespace

int runBench(const QStringList& arguments, int, char**) {
    QCommandLineParser parser;
    parser.addOption({"json", "Print JSON instead of text."});
    parser.addOption({"runs", "Timed runs per figure at BERT-base geometry (default 21).", "N"});
    parser.addOption({"no-gui", "Skip the GUI update figure."});
    parser.addOption({"gui-only", "Only the GUI update figures (skip the engine geometries)."});
    parser.addOption({"models-only", "Only the model checkpoints' figures (GPT-2-small, Llama-3.2-1B, Qwen3-0.6B, Gemma-3-1B, "
                               "BERT-base and ModernBERT-base geometries)."});
    parser.addOption({"quick", "A smoke run: small geometries, one run each (checks the bench works; "
                               "the figures mean little)."});
    QCommandLineOption child("model-child", "A timed process of the model figures.", "MODE"), child_dir("model-dir", "The folder --write-model writes.", "DIR");
    child.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(child);
    parser.addOption(child_dir);
    parser.addOption(cacheLayersOption());
    parser.addOption({"write-model", "Write the bench's random-weight checkpoint NAME (gpt2_small, llama_1b, qwen3_0.6b, "
                                     "gemma3_1b, bert_base, modernbert_base) into the folder --model-dir names, and stop: "
                                     "`headscope --bench --model DIR` then times the window on it.", "NAME"});
    parseOrThrow(parser, arguments);
    const int cache_layers = parseCacheLayers(parser);
    if (parser.isSet("write-model")) {
        if (!parser.isSet(child_dir)) throw UsageError("--write-model needs --model-dir DIR, the folder to write");
        const std::string name = parser.value("write-model").toStdString();
        const bool quick = parser.isSet("quick");
        writeBenchCheckpoint(name, parser.value(child_dir).toStdString(), quick);
        std::cout << "wrote " << name << (quick ? " (--quick: small)" : "") << " into " << parser.value(child_dir).toStdString() << "\n";
        return 0;
    }
    if (parser.isSet(child))
        return modelBenchChild(parser.value(child).toStdString(), parser.value(child_dir).toStdString(), cache_layers);
    const bool quick = parser.isSet("quick");
    const int runs = parser.isSet("runs") ? parseInt("runs", parser.value("runs"), 1, 1000) : quick ? 1 : 21;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());

    if (parser.isSet("gui-only") && parser.isSet("no-gui"))
        throw UsageError("--gui-only and --no-gui exclude each other");
    const bool models_only = parser.isSet("models-only");
    std::vector<GeometryFigures> figures;
    if (models_only) {
    } else if (quick && !parser.isSet("gui-only")) {
        figures.push_back(measure("bert_base", 96, 4, 16, runs, 1, 4));
        figures.push_back(measure("large", 160, 5, 32, runs, 1, 2));
    } else if (!parser.isSet("gui-only")) {
        // The naive full SVDs of 1600 x 1600 products take seconds each: at the large geometry
        // they are timed on 2 heads and scaled to 25 (every head costs the same).
        figures.push_back(measure("bert_base", 768, 12, 128, runs, std::max(1, runs / 4), 12));
        figures.push_back(measure("large", 1600, 25, 1024, std::max(3, runs / 4), 1, 2));
    }
    // The window's new-weights update at the engine, back to back and after a pause (PauseBench.h).
    std::optional<PauseFigures> pause;
    if (!figures.empty())
        pause = measureAfterPause(figures[0].d_model, figures[0].heads, 16, quick ? 3 : std::max(runs, 15));

    // Checkpoints of GPT-2-small and Llama-3.2-1B geometry opened by whole processes (issue 22);
    // --quick: small geometries.
    std::vector<ModelBenchCase> models;
    if (!parser.isSet("gui-only")) models = measureModels(quick, runs, cache_layers);

    // Training (issue 23): the full bench only; --quick stays a smoke run.
    std::optional<TrainBenchFigures> training;
    if (!quick && !parser.isSet("gui-only") && !models_only) training = measureTraining(std::max(runs, 51), 5, 4000);

    // The GUI's figures come from the GUI program, run beside this one (GuiBench.h there): this
    // program links no window. Its output is printed in place; if it cannot run, one line says why.
    std::optional<GuiSection> gui;
    if (!parser.isSet("no-gui") && !models_only) {
        prepareHeadlessQt();  // the child inherits the offscreen platform
        gui = runGuiProgram(runs, quick, parser.isSet("json"));
    }

    if (parser.isSet("json")) {
        nlohmann::json j;
        j["cores"] = cores;
        j["gram_kernel"] = bool(HEADSCOPE_GRAM_KERNEL);  // the spectra's Gram: our kernel, or Eigen's (Gram.h)
        j["instruction_set"] = {{"build", buildInstructionSet()}, {"cpu", cpuInstructionSet()}};
        for (const auto& g : figures)
            j[g.name] = {{"d_model", g.d_model}, {"heads", g.heads}, {"seq_len", g.n}, {"runs", g.runs},
                         {"forward_ms", g.forward_ms}, {"spectra_ms", g.spectra_ms},
                         {"forward_plus_spectra_ms", g.forward_plus_spectra_ms},
                         {"naive_spectra_ms", g.naive_spectra_ms}, {"naive_runs", g.naive_runs},
                         {"naive_heads_timed", g.naive_heads},
                         {"spectra_speedup", g.naive_spectra_ms / g.spectra_ms},
                         {"peak_memory_mib", g.peak_mib},
                         {"forward_multiply_adds", g.forward_multiply_adds},
                         {"gemm_gflops_per_core", g.gemm_gflops_per_core},
                         {"floor_ms", g.floor_ms},
                         {"forward_over_floor", g.forward_ms / g.floor_ms},
                         {"forward_plus_spectra_over_floor", g.forward_plus_spectra_ms / g.floor_ms},
                         {"gemm_gflops_all_cores", g.gemm_gflops_all_cores},
                         {"all_cores_floor_ms", g.all_cores_floor_ms},
                         {"forward_over_all_cores_floor", g.forward_ms / g.all_cores_floor_ms},
                         {"forward_plus_spectra_over_all_cores_floor", g.forward_plus_spectra_ms / g.all_cores_floor_ms},
                         {"gram_ms", g.gram.gram_ms}, {"gram_gemm_ms", g.gram.gemm_ms},
                         {"gram_over_gemm", g.gram.gram_ms / g.gram.gemm_ms}};
        if (pause)
            j["new_weights_update"] = {{"d_model", pause->d_model}, {"heads", pause->heads}, {"tokens", pause->tokens},
                                       {"runs", pause->runs}, {"pause_ms", pause->pause_ms},
                                       {"back_to_back_ms", pause->back_to_back_ms},
                                       {"back_to_back_weights_ms", pause->back_to_back_weights_ms},
                                       {"after_pause_ms", pause->after_pause_ms},
                                       {"after_pause_weights_ms", pause->after_pause_weights_ms},
                                       {"after_pause_over_back_to_back", pause->after_pause_ms / pause->back_to_back_ms}};
        if (gui && gui->error.empty()) j.update(nlohmann::json::parse(gui->output));
        if (gui && !gui->error.empty()) j["gui_error"] = gui->error;
        for (const ModelBenchCase& m : models) {
            nlohmann::json& mj = j["models"][m.name];
            mj = {{"dtype", m.dtype}, {"layers", m.layers}, {"d_model", m.d_model}, {"heads", m.heads},
                  {"kv_heads", m.kv_heads}, {"vocab", m.vocab}, {"file_mib", m.file_mib}, {"process_runs", m.runs},
                  {"process_s", m.process_s}, {"process_peak_mib", m.process_peak_mib},
                  {"process_peak_over_file", m.process_peak_mib / m.file_mib}};
            if (m.forward_s > 0)
                mj.update({{"open_s", m.open_s}, {"forward_tokens", m.forward_tokens}, {"forward_s", m.forward_s}, {"gemm_floor_s", m.floor_s},
                           {"forward_over_floor", m.forward_s / m.floor_s}, {"forward_peak_mib", m.forward_peak_mib},
                           {"forward_peak_over_file", m.forward_peak_mib / m.file_mib}});
            if (m.process_s <= 0) {
                for (const char* key : {"process_runs", "process_s", "process_peak_mib", "process_peak_over_file"}) mj.erase(key);
            }
            if (m.long_tokens > 0)
                mj.update({{"long_tokens", m.long_tokens}, {"long_forward_s", m.long_forward_s},
                           {"long_gemm_floor_s", m.long_floor_s}, {"long_forward_over_floor", m.long_forward_s / m.long_floor_s},
                           {"long_forward_peak_mib", m.long_peak_mib}, {"long_forward_peak_over_file", m.long_peak_mib / m.file_mib}});
        }
        if (training) {
            const TrainBenchFigures& t = *training;
            j["training"] = {{"parameters", t.parameters}, {"batch", t.batch}, {"context", t.context},
                             {"runs", t.runs}, {"threads", t.threads}, {"step_ms", t.step_ms},
                             {"step_multiply_adds", t.step_multiply_adds}, {"gemm_gflops_per_core", t.gemm_gflops},
                             {"floor_ms", t.floor_ms}, {"step_over_floor", t.step_ms / t.floor_ms},
                             {"seconds_to_90_percent", t.seconds_to_90}, {"steps_to_90_percent", t.steps_to_90},
                             {"max_steps", t.max_steps},
                             {"median_seconds_to_90_percent", t.median_seconds_to_90 >= 0
                                                                  ? nlohmann::json(t.median_seconds_to_90)
                                                                  : nlohmann::json(nullptr)}};
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("HeadScope benchmark: medians, %d cores; built for %s, the CPU has %s\n\n", cores,
                buildInstructionSet().c_str(), cpuInstructionSet().c_str());
    if (!figures.empty()) printGeometryTables(figures);
    if (pause)
        std::printf("\nnew weights (a seed change) at d_model %d, %d heads, %d tokens: weights, forward and spectra "
                    "back to back %.3f ms (weights %.3f); after %d ms idle %.3f ms (weights %.3f): %.2fx (a click after a pause; a drag's "
                    "changes come back to back)\n", pause->d_model, pause->heads, pause->tokens,
                    pause->back_to_back_ms, pause->back_to_back_weights_ms, pause->pause_ms, pause->after_pause_ms,
                    pause->after_pause_weights_ms, pause->after_pause_ms / pause->back_to_back_ms);
    for (const ModelBenchCase& m : models) {
        std::printf("\n%s checkpoint (%d layers, d_model %d, %d heads on %d K/V, vocabulary %d, %s, %.0f MiB)%s\n",
                    m.name.c_str(), m.layers, m.d_model, m.heads, m.kv_heads, m.vocab, m.dtype.c_str(), m.file_mib,
                    m.process_s > 0 ? (", whole processes, median of " + std::to_string(m.runs) + ":").c_str() : ":");
        if (m.process_s > 0)
            std::printf("  %s %.3f s, peak memory %.0f MiB (%.2fx the file)\n",
                        m.forward_s > 0 ? "open + layer 0's attention:" : "model --ids 464:", m.process_s, m.process_peak_mib,
                        m.process_peak_mib / m.file_mib);
        if (m.forward_s > 0)
            std::printf("  in one process: open %.3f s; %d-token forward of every layer %.3f s (median of 3), GEMM floor "
                        "%.3f s: %.2fx; peak memory %.0f MiB (%.2fx the file)\n", m.open_s, m.forward_tokens, m.forward_s, m.floor_s,
                        m.forward_s / m.floor_s, m.forward_peak_mib, m.forward_peak_mib / m.file_mib);
        if (m.long_tokens > 0)
            std::printf("  %d-token forward, one layer's maps at a time: %.3f s (median of 3), GEMM floor %.3f s: %.2fx; "
                        "peak memory %.0f MiB (%.2fx the file)\n", m.long_tokens, m.long_forward_s, m.long_floor_s,
                        m.long_forward_s / m.long_floor_s, m.long_peak_mib, m.long_peak_mib / m.file_mib);
    }
    if (training) {
        const TrainBenchFigures& t = *training;
        std::printf("\ntraining step of the default model (%lld parameters, batch %d x %d tokens, forward + backward + "
                    "Adam), median of %d: %.3f ms\n%.3g multiply-adds at %.1f GF/s per core on %d threads: floor %.3f ms, "
                    "step/floor %.2f\n", t.parameters, t.batch, t.context, t.runs, t.step_ms, t.step_multiply_adds,
                    t.gemm_gflops, t.threads, t.floor_ms, t.step_ms / t.floor_ms);
        std::printf("seconds to 90%% accuracy on the repeated half, per seed:");
        for (std::size_t i = 0; i < t.seconds_to_90.size(); ++i)
            if (t.seconds_to_90[i] >= 0)
                std::printf(" %.2f (step %lld)", t.seconds_to_90[i], t.steps_to_90[i]);
            else
                std::printf(" not within %d steps", t.max_steps);
        if (t.median_seconds_to_90 >= 0) std::printf("; median %.2f s\n", t.median_seconds_to_90);
        else std::printf("\n");
    }
    if (gui && gui->error.empty()) std::fputs(gui->output.c_str(), stdout);
    if (gui && !gui->error.empty()) std::printf("\nGUI figures not measured: %s\n", gui->error.c_str());
    return 0;
}

}  // namespace headscope::cli
