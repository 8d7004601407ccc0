#include "cli/ModelBench.h"

#include "cli/BenchCheckpoints.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "Parallel.h"
#include "Strings.h"  // median
#include "io/Checkpoint.h"
#include "model/Forward.h"

namespace headscope::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct ProcessFigures {
    double wall_s = 0, peak_mib = 0;
    std::string out;
};

// Runs this executable with `arguments`, its stdout into a file; wall time and peak memory (wait4).
ProcessFigures runSelf(const std::vector<std::string>& arguments, const fs::path& out_file) {
    std::vector<std::string> all = {"/proc/self/exe"};
    all.insert(all.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const Clock::time_point start = Clock::now();
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("bench: cannot start a process");
    if (child == 0) {
        const int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) ::dup2(fd, 1);
        ::execv("/proc/self/exe", argv.data());
        ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(child, &status, 0, &usage);
    ProcessFigures f;
    f.wall_s = secondsSince(start);
    f.peak_mib = double(usage.ru_maxrss) / 1024.0;  // KiB on Linux
    std::ifstream in(out_file);
    f.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("bench: `headscope-cli " + arguments.front() + "` on the benchmark checkpoint failed");
    return f;
}

std::vector<int> benchIds(int n, int vocab) {
    std::vector<int> ids(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) ids[i] = int((std::int64_t(i) * 7919 + 464) % vocab);
    return ids;
}

// The forward's products on float weights already in memory, the output columns split between two
// threads as the forward splits them: every block's projections, each query head's scores
// (n x d_k by d_k x n) and mixing (n x n by n x d_k) over the whole square (a sliding layer's band
// is not cheaper for a GEMM), the MLP (two matrices, three when gated), and the logits: the last
// row's for a decoder, every row's after the masked-LM head's d x d transform for an encoder.
class GemmFloor {
public:
    GemmFloor(const model::ModelConfig& c, int n) : c_(c), n_(n), logit_rows_(c.encoder ? n : 1) {
        const Eigen::Index d = c.n_embd, q = Eigen::Index(c.n_head) * c.headDim(), kv = Eigen::Index(c.kvHeads()) * c.headDim();
        const Eigen::Index inner = c.n_inner;
        std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes = {{d, q}, {d, kv}, {d, kv}, {q, d}, {d, inner}, {inner, d}};
        if (c.mlp == model::MlpKind::Gated) shapes.push_back({d, inner});
        for (const auto& [in, out] : shapes) weights_.push_back(Eigen::MatrixXf::Random(in, out));
        if (c.encoder) head_ = Eigen::MatrixXf::Random(d, d);
        embedding_ = Eigen::MatrixXf::Random(d, c.vocab_size);
        x_ = Eigen::MatrixXf::Random(n, std::max({d, q, inner}));
        y_.resize(n, std::max({d, q, inner, Eigen::Index(c.vocab_size)}));
        keys_ = Eigen::MatrixXf::Random(c.headDim(), n);  // (d_k, n)
        scores_.resize(n, n);
    }
    double seconds() {  // one pass over every layer and the logits
        const Clock::time_point start = Clock::now();
        for (int l = 0; l < c_.n_layer; ++l) {
            for (const Eigen::MatrixXf& w : weights_) product(w, n_);
            parallelFor(2, [&](int task) {
                for (int h = task; h < c_.n_head; h += 2) {
                    Eigen::MatrixXf scores = x_.topLeftCorner(n_, keys_.rows()) * keys_;             // (n, n)
                    Eigen::MatrixXf mixed = scores * keys_.transpose();                              // (n, d_k)
                    if (task == 0 && h == 0) scores_ = scores, y_.topLeftCorner(n_, mixed.cols()) = mixed;
                }
            });
        }
        if (head_.size()) product(head_, logit_rows_);
        product(embedding_, logit_rows_);
        return secondsSince(start);
    }

private:
    void product(const Eigen::MatrixXf& w, Eigen::Index rows) {
        parallelFor(2, [&](int task) {
            const Eigen::Index first = w.cols() / 2, begin = task == 0 ? 0 : first, width = task == 0 ? first : w.cols() - first;
            y_.topRows(rows).middleCols(begin, width).noalias() = x_.topRows(rows).leftCols(w.rows()) * w.middleCols(begin, width);
        });
    }
    const model::ModelConfig& c_;
    int n_, logit_rows_;
    std::vector<Eigen::MatrixXf> weights_;
    Eigen::MatrixXf embedding_, head_, x_, y_, keys_, scores_;
};

}  // namespace

int modelBenchChild(const std::string& mode, const std::string& directory, int cache_layers) {
    const Clock::time_point start = Clock::now();
    const model::ModelPtr m = io::loadCheckpoint(directory, {}, cache_layers);
    const double open_s = secondsSince(start);
    if (mode == "first-layer") {
        model::ForwardOptions options;
        options.layers = 1;
        const model::Trace trace = model::runModel(*m, benchIds(8, m->config.vocab_size), options);
        return trace.layers.size() == 1 ? 0 : 1;
    }
    // forward: 64 tokens (forward:N, N tokens), every map kept (what the window holds); forward-long:
    // 2,048 tokens, each layer's maps dropped with it (ForwardOptions::keep_maps), as a long input is run.
    const bool long_input = mode == "forward-long";
    if (mode != "forward" && !long_input && !mode.starts_with("forward:"))
        throw std::invalid_argument("--model-child is first-layer, forward[:N] or forward-long");
    const int tokens = long_input ? std::min(2048, m->config.n_positions)
                       : mode == "forward" ? 64
                                           : std::clamp(std::atoi(mode.c_str() + 8), 1, m->config.n_positions);
    model::ForwardOptions options;
    options.keep_maps = !long_input;
    const std::vector<int> ids = benchIds(tokens, m->config.vocab_size);
    model::runModel(*m, ids, options);  // the first forward: pages of the file faulted in, the cache's layers converted
    const double forward_peak = peakMemoryMiB();  // before the floor's own matrices
    // The forward and its floor in turn, three times, so that both see the same load on the machine.
    GemmFloor floor(m->config, tokens);
    std::vector<double> seconds, floors;
    for (int run = 0; run < 3; ++run) {
        const Clock::time_point t = Clock::now();
        const model::Trace trace = model::runModel(*m, ids, options);
        seconds.push_back(secondsSince(t));
        floors.push_back(floor.seconds());
    }
    std::cout << json{{"open_s", open_s}, {"tokens", tokens}, {"forward_s", median(seconds)},
                      {"forward_peak_mib", forward_peak}, {"floor_s", median(floors)}}.dump() << "\n";
    return 0;
}

std::vector<ModelBenchCase> measureModels(bool quick, int runs, int cache_layers) {
    char pattern[] = "/tmp/headscope-bench-XXXXXX";
    if (!::mkdtemp(pattern)) throw std::runtime_error("bench: cannot make a temporary folder");
    const fs::path root = pattern;
    struct Remove {
        fs::path path;
        ~Remove() {
            std::error_code error;
            fs::remove_all(path, error);
        }
    } remove{root};
    const int process_runs = quick ? 1 : std::clamp(runs, 3, 7);
    const std::string cache = std::to_string(cache_layers);
    std::vector<ModelBenchCase> cases;

    // A checkpoint's folder under root, and its case with the geometry filled in.
    const auto write = [&](const std::string& name) {
        const BenchCheckpoint c = benchCheckpoint(name, quick);
        writeBenchCheckpoint(name, root / name, quick);
        const BenchGeometry& g = c.geometry;
        return std::pair{root / name, ModelBenchCase{c.name, c.dtype, g.layers, g.d, g.heads, g.kv_heads, g.vocab}};
    };
    auto [gpt2_dir, g] = write("gpt2_small");
    g.file_mib = double(fs::file_size(gpt2_dir / "model.safetensors")) / (1 << 20);
    g.runs = process_runs;
    std::vector<double> wall, peak;
    for (int r = 0; r < process_runs; ++r) {
        const ProcessFigures f = runSelf({"model", "--checkpoint", gpt2_dir.string(), "--ids", "464", "--cache-layers", cache}, root / "out.txt");
        wall.push_back(f.wall_s);
        peak.push_back(f.peak_mib);
    }
    g.process_s = median(wall), g.process_peak_mib = median(peak);
    cases.push_back(g);
    fs::remove_all(gpt2_dir);

    auto [llama_dir, l] = write("llama_1b");
    l.runs = process_runs;
    wall.clear(), peak.clear();
    for (int r = 0; r < process_runs; ++r) {
        const ProcessFigures f = runSelf({"bench", "--model-child", "first-layer", "--model-dir", llama_dir.string(), "--cache-layers", cache}, root / "out.txt");
        wall.push_back(f.wall_s);
        peak.push_back(f.peak_mib);
    }
    l.process_s = median(wall), l.process_peak_mib = median(peak);
    // The in-process forwards of a folder: 64 tokens, and with `long_input` 2,048 too. The folder is removed after.
    const auto forwards = [&](ModelBenchCase& m, const fs::path& dir, bool long_input) {
        m.file_mib = double(fs::file_size(dir / "model.safetensors")) / (1 << 20);
        const std::string mode = "forward:" + std::to_string(m.forward_tokens);
        json figures = json::parse(runSelf({"bench", "--model-child", mode, "--model-dir", dir.string(), "--cache-layers", cache},
                                           root / "out.txt").out);
        m.open_s = figures["open_s"], m.forward_s = figures["forward_s"], m.forward_peak_mib = figures["forward_peak_mib"];
        m.forward_tokens = figures["tokens"];  // what the child ran
        m.floor_s = figures["floor_s"];
        if (long_input) {
            figures = json::parse(runSelf({"bench", "--model-child", "forward-long", "--model-dir", dir.string(), "--cache-layers", cache},
                                          root / "out.txt").out);
            m.long_tokens = figures["tokens"], m.long_forward_s = figures["forward_s"];
            m.long_floor_s = figures["floor_s"], m.long_peak_mib = figures["forward_peak_mib"];
        }
        fs::remove_all(dir);
        cases.push_back(m);
    };
    forwards(l, llama_dir, false);

    // Issue 33: Qwen3 0.6B (per-head q/k norms) and Gemma 3 1B (sandwich norms, a window of 512 on
    // five layers of six, head_dim 256 on one key/value head, a 262,144-token vocabulary), BF16.
    auto [qwen3_dir, q] = write("qwen3_0.6b");
    forwards(q, qwen3_dir, false);
    auto [gemma3_dir, gm] = write("gemma3_1b");
    forwards(gm, gemma3_dir, true);

    // Issue 34: the encoders of attention tutorials, F32: BERT-base on 128 tokens and ModernBERT-base on
    // 512 (22 layers, GeGLU, a band of 128 on two layers of three); the first picture is a process that
    // opens the folder and computes layer 0's attention.
    const auto encoder = [&](const std::string& name, int tokens) {
        auto [dir, c] = write(name);
        c.forward_tokens = tokens;
        c.runs = process_runs;
        std::vector<double> times, peaks;
        for (int r = 0; r < process_runs; ++r) {
            const ProcessFigures f = runSelf({"bench", "--model-child", "first-layer", "--model-dir", dir.string(), "--cache-layers", cache},
                                             root / "out.txt");
            times.push_back(f.wall_s);
            peaks.push_back(f.peak_mib);
        }
        c.process_s = median(times), c.process_peak_mib = median(peaks);
        forwards(c, dir, false);
    };
    encoder("bert_base", quick ? 32 : 128);
    encoder("modernbert_base", quick ? 96 : 512);
    return cases;
}

double peakMemoryMiB() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            double kib = 0;
            status >> kib;
            return kib / 1024.0;
        }
        status.ignore(1 << 12, '\n');
    }
    return 0;
}

}  // namespace headscope::cli
