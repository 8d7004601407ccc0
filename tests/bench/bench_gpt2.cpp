// Benchmark: a GPT-2-small-shaped checkpoint (124M parameters, random weights, written here
// and never committed) opened and run as headscope-cli model would. Prints, over several
// runs, each in a fresh child process so peak memory is the load's own:
//   open   loadGpt2Checkpoint() wall time (config, memory-mapped safetensors, tokenizer)
//   peak   the child's peak resident memory (VmHWM) after opening, and its ratio to the file
//   fwd    runModel() on 64 tokens: every layer, every head's logits and weights, last logits
// Usage: bench_gpt2 [--runs N] [--dtype F32|F16|BF16] [--dir DIR] [--keep]
// GPT-2's real vocab.json / merges.txt are used when HEADSCOPE_GPT2_VOCAB_DIR has them, else a
// synthetic 50257-token vocabulary (ids are given directly, so the text path is not timed).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <time.h>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "io/Gpt2Checkpoint.h"
#include "model/Forward.h"
#include "text/Gpt2Tokenizer.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kLayers = 12, kHeads = 12, kEmbd = 768, kPositions = 1024, kVocab = 50257, kTokens = 64;

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double cpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double peakMiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

// Writes config.json, model.safetensors (streamed: never the whole model in memory),
// vocab.json and merges.txt. Returns the safetensors file size.
std::uint64_t writeCheckpoint(const fs::path& dir, const std::string& dtype) {
    fs::create_directories(dir);
    nlohmann::json config = {{"model_type", "gpt2"}, {"n_layer", kLayers},   {"n_head", kHeads},
                             {"n_embd", kEmbd},      {"n_positions", kPositions}, {"vocab_size", kVocab},
                             {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}};
    std::ofstream(dir / "config.json") << config.dump(2);

    std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors = {{"wte.weight", {kVocab, kEmbd}},
                                                                              {"wpe.weight", {kPositions, kEmbd}}};
    for (int l = 0; l < kLayers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        tensors.push_back({h + "ln_1.weight", {kEmbd}});
        tensors.push_back({h + "ln_1.bias", {kEmbd}});
        tensors.push_back({h + "attn.c_attn.weight", {kEmbd, 3 * kEmbd}});
        tensors.push_back({h + "attn.c_attn.bias", {3 * kEmbd}});
        tensors.push_back({h + "attn.c_proj.weight", {kEmbd, kEmbd}});
        tensors.push_back({h + "attn.c_proj.bias", {kEmbd}});
        tensors.push_back({h + "ln_2.weight", {kEmbd}});
        tensors.push_back({h + "ln_2.bias", {kEmbd}});
        tensors.push_back({h + "mlp.c_fc.weight", {kEmbd, 4 * kEmbd}});
        tensors.push_back({h + "mlp.c_fc.bias", {4 * kEmbd}});
        tensors.push_back({h + "mlp.c_proj.weight", {4 * kEmbd, kEmbd}});
        tensors.push_back({h + "mlp.c_proj.bias", {kEmbd}});
    }
    tensors.push_back({"ln_f.weight", {kEmbd}});
    tensors.push_back({"ln_f.bias", {kEmbd}});
    const std::size_t item = dtype == "F32" ? 4 : 2;
    nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
    std::uint64_t offset = 0;
    for (const auto& [name, shape] : tensors) {
        std::uint64_t count = 1;
        for (auto d : shape) count *= d;
        header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {offset, offset + count * item}}};
        offset += count * item;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    const std::uint64_t length = text.size();
    out.write(reinterpret_cast<const char*>(&length), 8);  // little-endian host
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    std::mt19937 rng(1234);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<char> chunk;
    for (const auto& [name, shape] : tensors) {
        std::uint64_t count = 1;
        for (auto d : shape) count *= d;
        const bool norm_weight = name.find("ln_") != std::string::npos && name.find(".weight") != std::string::npos;
        for (std::uint64_t start = 0; start < count; start += 1 << 20) {
            const std::uint64_t n = std::min<std::uint64_t>(1 << 20, count - start);
            chunk.resize(n * item);
            for (std::uint64_t i = 0; i < n; ++i) {
                const float v = norm_weight ? 1.0f : normal(rng);
                if (dtype == "F32") std::memcpy(&chunk[i * 4], &v, 4);
                else if (dtype == "F16") {
                    const auto bits = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(v));
                    std::memcpy(&chunk[i * 2], &bits, 2);
                } else {
                    const auto bits = Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(v));
                    std::memcpy(&chunk[i * 2], &bits, 2);
                }
            }
            out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        }
    }
    out.close();

    const fs::path real = HEADSCOPE_GPT2_VOCAB_DIR;
    if (fs::exists(real / "encoder.json") && fs::exists(real / "vocab.bpe")) {
        fs::copy_file(real / "encoder.json", dir / "vocab.json", fs::copy_options::overwrite_existing);
        fs::copy_file(real / "vocab.bpe", dir / "merges.txt", fs::copy_options::overwrite_existing);
    } else {
        nlohmann::json vocab;
        const auto& bytes = headscope::text::byteToUnicode();
        for (int b = 0; b < 256; ++b) vocab[bytes[b]] = b;
        for (int id = 256; id < kVocab; ++id) vocab["tok" + std::to_string(id)] = id;
        std::ofstream(dir / "vocab.json") << vocab.dump();
        std::ofstream(dir / "merges.txt") << "#version: 0.2\n";
    }
    return fs::file_size(dir / "model.safetensors");
}

struct RunFigures {
    double open_ms = 0, peak_mib = 0, forward_ms = 0, baseline_mib = 0;
    double open_cpu_ms = 0, forward_cpu_ms = 0;  // CPU time of all threads: what the work costs when cores are shared
};

// In a child process: open, measure, run the forward pass. Figures come back through a pipe.
RunFigures measureInChild(const fs::path& dir, int forwards) {
    int fds[2];
    if (pipe(fds) != 0) std::abort();
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        RunFigures f;
        f.baseline_mib = peakMiB();
        const auto start = Clock::now();
        const double cpu_start = cpuMs();
        const auto model = headscope::io::loadGpt2Checkpoint(dir.string());
        f.open_ms = msSince(start);
        f.open_cpu_ms = cpuMs() - cpu_start;
        f.peak_mib = peakMiB();
        std::vector<int> ids(kTokens);
        for (int i = 0; i < kTokens; ++i) ids[i] = (i * 7919 + 13) % kVocab;
        std::vector<double> times, cpu;
        for (int run = 0; run < forwards + 1; ++run) {  // run 0 warms up
            const auto t = Clock::now();
            const double c = cpuMs();
            const auto trace = headscope::model::runModel(*model, ids);
            if (run > 0) times.push_back(msSince(t)), cpu.push_back(cpuMs() - c);
            if (trace.layers.back().attention.heads.back().weights.hasNaN()) std::abort();
        }
        f.forward_ms = median(times);
        f.forward_cpu_ms = median(cpu);
        if (write(fds[1], &f, sizeof f) != sizeof f) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    RunFigures f;
    const bool ok = read(fds[0], &f, sizeof f) == sizeof f;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_gpt2: the measuring child failed\n");
        std::exit(1);
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 5;
    std::string dtype = "F32";
    fs::path dir = fs::temp_directory_path() / ("headscope-bench-gpt2-" + std::to_string(getpid()));
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--dtype" && i + 1 < argc) dtype = argv[++i];
        else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--keep") keep = true;
        else {
            std::fprintf(stderr, "usage: bench_gpt2 [--runs N] [--dtype F32|F16|BF16] [--dir DIR] [--keep]\n");
            return 2;
        }
    }
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16") {
        std::fprintf(stderr, "bench_gpt2: --dtype must be F32, F16 or BF16\n");
        return 2;
    }
    const auto start = Clock::now();
    const std::uint64_t file_bytes = writeCheckpoint(dir, dtype);
    const double file_mib = file_bytes / 1048576.0;
    std::printf("GPT-2-small-shaped checkpoint (%d layers x %d heads, d_model %d, vocabulary %d), %s: %.1f MiB "
                "model.safetensors, written in %.1f s to %s\n",
                kLayers, kHeads, kEmbd, kVocab, dtype.c_str(), file_mib, msSince(start) / 1000, dir.c_str());
    std::printf("%4s %10s %12s %12s %12s %10s %14s %14s\n", "run", "open ms", "open cpu ms", "peak MiB", "peak / file",
                "base MiB", "forward64 ms", "fwd cpu ms");
    std::vector<double> open, peak, forward, forward_cpu;
    for (int run = 0; run < runs; ++run) {
        const RunFigures f = measureInChild(dir, 7);
        std::printf("%4d %10.1f %12.1f %12.1f %12.3f %10.1f %14.1f %14.1f\n", run, f.open_ms, f.open_cpu_ms, f.peak_mib,
                    f.peak_mib / file_mib, f.baseline_mib, f.forward_ms, f.forward_cpu_ms);
        forward_cpu.push_back(f.forward_cpu_ms);
        open.push_back(f.open_ms);
        peak.push_back(f.peak_mib);
        forward.push_back(f.forward_ms);
    }
    std::printf("median over %d runs: open %.1f ms, peak memory %.1f MiB = %.3f x the file, "
                "64-token forward with every head's attention %.1f ms (median of 7 each; %.1f ms of CPU time over all "
                "threads)\n",
                runs, median(open), median(peak), median(peak) / file_mib, median(forward), median(forward_cpu));
    double load = 0;
    if (std::ifstream loadavg("/proc/loadavg"); loadavg >> load)
        std::printf("load average during the runs: %.2f on %u cores (figures from shared cores run slower)\n", load,
                    std::thread::hardware_concurrency());
    if (!keep) fs::remove_all(dir);
    return 0;
}
