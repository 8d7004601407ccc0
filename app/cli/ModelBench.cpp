#include "cli/ModelBench.h"

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

struct Geometry {
    int layers, d, heads, kv_heads, head_dim, inner, vocab, context;
};

struct TensorSpec {
    std::string name;
    std::vector<std::int64_t> shape;
    bool ones = false;  // a norm's weight
};

// Random weights U(-0.03, 0.03) (a norm's weight 1), as F32 or BF16, streamed to a safetensors file.
void writeSafetensors(const fs::path& path, const std::vector<TensorSpec>& tensors, bool bf16) {
    const std::size_t item = bf16 ? 2 : 4;
    json header = json::object();
    std::uint64_t offset = 0;
    for (const TensorSpec& t : tensors) {
        const auto count = std::accumulate(t.shape.begin(), t.shape.end(), std::uint64_t(1),
                                           [](std::uint64_t a, std::int64_t b) { return a * std::uint64_t(b); });
        header[t.name] = {{"dtype", bf16 ? "BF16" : "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + count * item}}};
        offset += count * item;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((length >> (8 * i)) & 0xFF));
    out << text;
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    std::vector<unsigned char> chunk;
    for (const TensorSpec& t : tensors) {
        std::uint64_t count = 1;
        for (std::int64_t dim : t.shape) count *= std::uint64_t(dim);
        for (std::uint64_t start = 0; start < count; start += 1 << 20) {
            const std::uint64_t n = std::min<std::uint64_t>(1 << 20, count - start);
            chunk.resize(n * item);
            for (std::uint64_t i = 0; i < n; ++i) {
                state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
                const float value = t.ones ? 1.0f : float((state >> 40) * (1.0 / 16777216.0) - 0.5) * 0.06f;
                std::uint32_t bits;
                std::memcpy(&bits, &value, 4);
                if (bf16) bits >>= 16;
                for (std::size_t b = 0; b < item; ++b) chunk[i * item + b] = static_cast<unsigned char>(bits >> (8 * b));
            }
            out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
        }
    }
    if (!out) throw std::runtime_error("cannot write the benchmark checkpoint " + path.string() + " (disk full?)");
}

// A byte-level BPE vocabulary of `vocab` tokens with vocab - 256 merges (parsed as a real one is).
void writeVocabulary(const fs::path& dir, int vocab) {
    json tokens = json::object();
    for (int i = 0; i < vocab; ++i) tokens["t" + std::to_string(i)] = i;
    std::ofstream(dir / "vocab.json") << tokens.dump();
    std::ofstream merges(dir / "merges.txt");
    merges << "#version: 0.2\n";
    for (int i = 256; i < vocab; ++i) merges << "t" << (i * 7) % 256 << " t" << (i - 256) << "\n";
}

fs::path writeGpt2(const fs::path& root, const Geometry& g) {
    const fs::path dir = root / "gpt2";
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << json{{"model_type", "gpt2"}, {"n_layer", g.layers}, {"n_head", g.heads},
                                               {"n_embd", g.d}, {"n_positions", g.context}, {"vocab_size", g.vocab}}.dump();
    const std::int64_t d = g.d;
    std::vector<TensorSpec> t = {{"wte.weight", {g.vocab, d}}, {"wpe.weight", {g.context, d}}};
    for (int l = 0; l < g.layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        for (const char* ln : {"ln_1.", "ln_2."}) {
            t.push_back({h + ln + "weight", {d}, true});
            t.push_back({h + ln + "bias", {d}});
        }
        t.push_back({h + "attn.c_attn.weight", {d, 3 * d}});
        t.push_back({h + "attn.c_attn.bias", {3 * d}});
        t.push_back({h + "attn.c_proj.weight", {d, d}});
        t.push_back({h + "attn.c_proj.bias", {d}});
        t.push_back({h + "mlp.c_fc.weight", {d, 4 * d}});
        t.push_back({h + "mlp.c_fc.bias", {4 * d}});
        t.push_back({h + "mlp.c_proj.weight", {4 * d, d}});
        t.push_back({h + "mlp.c_proj.bias", {d}});
    }
    t.push_back({"ln_f.weight", {d}, true});
    t.push_back({"ln_f.bias", {d}});
    writeSafetensors(dir / "model.safetensors", t, false);
    writeVocabulary(dir, g.vocab);
    return dir;
}

// A Llama-like folder, BF16 with tied embeddings: `config` (without the sizes, which come from `g`)
// names the family; Qwen3 and Gemma 3 add each head's q/k norm, Gemma 3 its sandwich norms.
fs::path writeLlamaLike(const fs::path& root, const std::string& name, const Geometry& g, json config) {
    const fs::path dir = root / name;
    fs::create_directories(dir);
    config.update({{"num_hidden_layers", g.layers}, {"num_attention_heads", g.heads}, {"num_key_value_heads", g.kv_heads},
                   {"hidden_size", g.d}, {"head_dim", g.head_dim}, {"intermediate_size", g.inner},
                   {"vocab_size", g.vocab}, {"tie_word_embeddings", true}, {"max_position_embeddings", g.context}});
    std::ofstream(dir / "config.json") << config.dump();
    const std::string type = config["model_type"];
    const bool gemma = type == "gemma3_text", qk_norm = gemma || type == "qwen3";
    const std::int64_t d = g.d, q = std::int64_t(g.heads) * g.head_dim, kv = std::int64_t(g.kv_heads) * g.head_dim;
    std::vector<TensorSpec> t = {{"model.embed_tokens.weight", {g.vocab, d}}};
    for (int l = 0; l < g.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t.push_back({p + "input_layernorm.weight", {d}, true});
        t.push_back({p + "self_attn.q_proj.weight", {q, d}});
        t.push_back({p + "self_attn.k_proj.weight", {kv, d}});
        t.push_back({p + "self_attn.v_proj.weight", {kv, d}});
        t.push_back({p + "self_attn.o_proj.weight", {d, q}});
        if (qk_norm) {
            t.push_back({p + "self_attn.q_norm.weight", {g.head_dim}, true});
            t.push_back({p + "self_attn.k_norm.weight", {g.head_dim}, true});
        }
        t.push_back({p + "post_attention_layernorm.weight", {d}, true});
        if (gemma) {
            t.push_back({p + "pre_feedforward_layernorm.weight", {d}, true});
            t.push_back({p + "post_feedforward_layernorm.weight", {d}, true});
        }
        t.push_back({p + "mlp.gate_proj.weight", {g.inner, d}});
        t.push_back({p + "mlp.up_proj.weight", {g.inner, d}});
        t.push_back({p + "mlp.down_proj.weight", {d, g.inner}});
    }
    t.push_back({"model.norm.weight", {d}, true});
    writeSafetensors(dir / "model.safetensors", t, true);
    writeVocabulary(dir, g.vocab);
    return dir;
}

// An encoder's *ForMaskedLM folder as transformers writes it, F32, tied, without a tokenizer (the
// bench gives ids): `bert` (post-norm blocks with biases, token types, learned positions) or
// `modernbert` (fused Wqkv, GeGLU, pre-norm without biases, a local band on two layers of three).
fs::path writeEncoder(const fs::path& root, const std::string& type, const Geometry& g, int local_window) {
    const fs::path dir = root / type;
    fs::create_directories(dir);
    const std::int64_t d = g.d;
    std::vector<TensorSpec> t;
    json config = {{"model_type", type}, {"num_hidden_layers", g.layers}, {"num_attention_heads", g.heads},
                   {"hidden_size", g.d}, {"intermediate_size", g.inner}, {"vocab_size", g.vocab},
                   {"max_position_embeddings", g.context}, {"tie_word_embeddings", true}, {"pad_token_id", 0}};
    if (type == "bert") {
        config.update({{"hidden_act", "gelu"}, {"layer_norm_eps", 1e-12}, {"type_vocab_size", 2}});
        const auto norm = [&t, d](const std::string& name) {
            t.push_back({name + ".weight", {d}, true});
            t.push_back({name + ".bias", {d}});
        };
        const auto dense = [&t](const std::string& name, std::int64_t out, std::int64_t in) {
            t.push_back({name + ".weight", {out, in}});
            t.push_back({name + ".bias", {out}});
        };
        t = {{"bert.embeddings.word_embeddings.weight", {g.vocab, d}}, {"bert.embeddings.position_embeddings.weight", {g.context, d}},
             {"bert.embeddings.token_type_embeddings.weight", {2, d}}};
        norm("bert.embeddings.LayerNorm");
        for (int l = 0; l < g.layers; ++l) {
            const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
            for (const char* name : {"query", "key", "value"}) dense(p + "attention.self." + name, d, d);
            dense(p + "attention.output.dense", d, d);
            norm(p + "attention.output.LayerNorm");
            dense(p + "intermediate.dense", g.inner, d);
            dense(p + "output.dense", d, g.inner);
            norm(p + "output.LayerNorm");
        }
        dense("cls.predictions.transform.dense", d, d);
        norm("cls.predictions.transform.LayerNorm");
        t.push_back({"cls.predictions.bias", {g.vocab}});
    } else {
        json layer_types = json::array();
        for (int l = 0; l < g.layers; ++l) layer_types.push_back(l % 3 == 0 ? "full_attention" : "sliding_attention");
        config.update({{"hidden_activation", "gelu"}, {"classifier_activation", "gelu"}, {"norm_eps", 1e-5}, {"norm_bias", false},
                       {"attention_bias", false}, {"mlp_bias", false}, {"decoder_bias", true}, {"local_attention", local_window},
                       {"global_attn_every_n_layers", 3}, {"layer_types", layer_types},
                       {"rope_parameters", {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 160000.0}}},
                                            {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 10000.0}}}}}});
        t = {{"model.embeddings.tok_embeddings.weight", {g.vocab, d}}, {"model.embeddings.norm.weight", {d}, true}};
        for (int l = 0; l < g.layers; ++l) {
            const std::string p = "model.layers." + std::to_string(l) + ".";
            if (l > 0) t.push_back({p + "attn_norm.weight", {d}, true});  // layer 0 reads the embedding's norm
            t.push_back({p + "attn.Wqkv.weight", {3 * d, d}});
            t.push_back({p + "attn.Wo.weight", {d, d}});
            t.push_back({p + "mlp_norm.weight", {d}, true});
            t.push_back({p + "mlp.Wi.weight", {2 * std::int64_t(g.inner), d}});
            t.push_back({p + "mlp.Wo.weight", {d, g.inner}});
        }
        t.push_back({"model.final_norm.weight", {d}, true});
        t.push_back({"head.dense.weight", {d, d}});
        t.push_back({"head.norm.weight", {d}, true});
        t.push_back({"decoder.bias", {g.vocab}});
    }
    std::ofstream(dir / "config.json") << config.dump();
    writeSafetensors(dir / "model.safetensors", t, false);
    return dir;
}

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

    const Geometry gpt2 = quick ? Geometry{2, 64, 4, 4, 16, 256, 1000, 128} : Geometry{12, 768, 12, 12, 64, 3072, 50257, 1024};
    const fs::path gpt2_dir = writeGpt2(root, gpt2);
    ModelBenchCase g{"gpt2_small", "F32", gpt2.layers, gpt2.d, gpt2.heads, gpt2.heads, gpt2.vocab};
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

    const Geometry llama = quick ? Geometry{2, 128, 4, 2, 32, 256, 1000, 2048}
                                 : Geometry{16, 2048, 32, 8, 64, 8192, 128256, 131072};
    const fs::path llama_dir = writeLlamaLike(root, "llama", llama, {
        {"model_type", "llama"}, {"rope_theta", 500000.0}, {"rms_norm_eps", 1e-5},
        {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                          {"original_max_position_embeddings", 8192}}}});
    ModelBenchCase l{"llama_1b", "BF16", llama.layers, llama.d, llama.heads, llama.kv_heads, llama.vocab};
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
    const Geometry qwen3 = quick ? Geometry{2, 128, 4, 2, 32, 256, 1000, 2048} : Geometry{28, 1024, 16, 8, 128, 3072, 151936, 40960};
    ModelBenchCase q{"qwen3_0.6b", "BF16", qwen3.layers, qwen3.d, qwen3.heads, qwen3.kv_heads, qwen3.vocab};
    forwards(q, writeLlamaLike(root, "qwen3", qwen3, {{"model_type", "qwen3"}, {"rope_theta", 1000000.0}, {"rms_norm_eps", 1e-6}}),
             false);
    const Geometry gemma3 = quick ? Geometry{6, 128, 4, 1, 64, 256, 1000, 2048} : Geometry{26, 1152, 4, 1, 256, 6912, 262144, 32768};
    ModelBenchCase gm{"gemma3_1b", "BF16", gemma3.layers, gemma3.d, gemma3.heads, gemma3.kv_heads, gemma3.vocab};
    forwards(gm, writeLlamaLike(root, "gemma3", gemma3, {{"model_type", "gemma3_text"}, {"rope_theta", 1000000.0},
                                                        {"rope_local_base_freq", 10000.0}, {"sliding_window", quick ? 64 : 512},
                                                        {"sliding_window_pattern", 6}, {"query_pre_attn_scalar", 256}}),
             true);

    // Issue 34: the encoders of attention tutorials, F32: BERT-base on 128 tokens and ModernBERT-base on
    // 512 (22 layers, GeGLU, a band of 128 on two layers of three); the first picture is a process that
    // opens the folder and computes layer 0's attention.
    const auto encoder = [&](const std::string& name, const std::string& type, const Geometry& e, int tokens, int window) {
        const fs::path dir = writeEncoder(root, type, e, window);
        ModelBenchCase c{name, "F32", e.layers, e.d, e.heads, e.heads, e.vocab};
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
    encoder("bert_base", "bert", quick ? Geometry{2, 64, 4, 4, 16, 128, 1000, 128} : Geometry{12, 768, 12, 12, 64, 3072, 30522, 512},
            quick ? 32 : 128, 0);
    encoder("modernbert_base", "modernbert",
            quick ? Geometry{3, 64, 4, 4, 16, 96, 1000, 512} : Geometry{22, 768, 12, 12, 64, 1152, 50368, 8192}, quick ? 96 : 512,
            quick ? 16 : 128);
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
