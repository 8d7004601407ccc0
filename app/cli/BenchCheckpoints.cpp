#include "cli/BenchCheckpoints.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "text/Gpt2Tokenizer.h"

namespace headscope::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

// A byte-level BPE vocabulary of `vocab` tokens, parsed as a real one is and able to read any
// text: ids 0-255 are GPT-2's 256 byte characters (bytes_to_unicode), and merge k (token
// 256 + k) joins byte k mod 256 to token k / 256, an earlier one. Distinct k give distinct
// pairs, and each token is a byte character followed by an earlier token, so no two tokens
// spell the same string; at 262,144 tokens none is longer than three characters.
void writeVocabulary(const fs::path& dir, int vocab) {
    std::vector<std::string> spelling(std::size_t(std::max(vocab, 256)));
    for (int b = 0; b < 256; ++b) spelling[std::size_t(b)] = text::byteToUnicode()[std::size_t(b)];
    std::ofstream merges(dir / "merges.txt");
    merges << "#version: 0.2\n";
    for (int k = 0; 256 + k < vocab; ++k) {
        const std::string& left = spelling[std::size_t(k % 256)];
        const std::string& right = spelling[std::size_t(k / 256)];
        merges << left << ' ' << right << '\n';
        spelling[std::size_t(256 + k)] = left + right;
    }
    json tokens = json::object();
    for (int i = 0; i < vocab; ++i) tokens[spelling[std::size_t(i)]] = i;
    std::ofstream(dir / "vocab.json") << tokens.dump();
}

void writeGpt2(const fs::path& dir, const BenchGeometry& g) {
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
}

// A Llama-like folder, BF16 with tied embeddings: `config` (without the sizes, which come from `g`)
// names the family; Qwen3 and Gemma 3 add each head's q/k norm, Gemma 3 its sandwich norms.
void writeLlamaLike(const fs::path& dir, const BenchGeometry& g, json config) {
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
}

// An encoder's *ForMaskedLM folder as transformers writes it, F32, tied, without a tokenizer (the
// bench gives ids): `bert` (post-norm blocks with biases, token types, learned positions) or
// `modernbert` (fused Wqkv, GeGLU, pre-norm without biases, a local band on two layers of three).
void writeEncoder(const fs::path& dir, const std::string& type, const BenchGeometry& g, int local_window) {
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
}

}  // namespace

std::vector<BenchCheckpoint> benchCheckpoints(bool quick) {
    // layers, d_model, heads, key/value heads, head_dim, intermediate, vocabulary, context
    return {
        {"gpt2_small", "F32", quick ? BenchGeometry{2, 64, 4, 4, 16, 256, 1000, 128} : BenchGeometry{12, 768, 12, 12, 64, 3072, 50257, 1024}},
        {"llama_1b", "BF16",
         quick ? BenchGeometry{2, 128, 4, 2, 32, 256, 1000, 2048} : BenchGeometry{16, 2048, 32, 8, 64, 8192, 128256, 131072}},
        {"qwen3_0.6b", "BF16",
         quick ? BenchGeometry{2, 128, 4, 2, 32, 256, 1000, 2048} : BenchGeometry{28, 1024, 16, 8, 128, 3072, 151936, 40960}},
        {"gemma3_1b", "BF16",
         quick ? BenchGeometry{6, 128, 4, 1, 64, 256, 1000, 2048} : BenchGeometry{26, 1152, 4, 1, 256, 6912, 262144, 32768}},
        {"bert_base", "F32", quick ? BenchGeometry{2, 64, 4, 4, 16, 128, 1000, 128} : BenchGeometry{12, 768, 12, 12, 64, 3072, 30522, 512}},
        {"modernbert_base", "F32",
         quick ? BenchGeometry{3, 64, 4, 4, 16, 96, 1000, 512} : BenchGeometry{22, 768, 12, 12, 64, 1152, 50368, 8192}},
    };
}

BenchCheckpoint benchCheckpoint(const std::string& name, bool quick) {
    std::string names;
    for (const BenchCheckpoint& c : benchCheckpoints(quick)) {
        if (c.name == name) return c;
        names += (names.empty() ? "" : ", ") + c.name;
    }
    throw std::invalid_argument("no bench checkpoint called '" + name + "': the bench writes " + names);
}

void writeBenchCheckpoint(const std::string& name, const fs::path& dir, bool quick) {
    const BenchGeometry g = benchCheckpoint(name, quick).geometry;  // an unknown name refused before any folder is made
    fs::create_directories(dir);
    if (name == "gpt2_small") {
        writeGpt2(dir, g);
    } else if (name == "llama_1b") {
        writeLlamaLike(dir, g, {{"model_type", "llama"}, {"rope_theta", 500000.0}, {"rms_norm_eps", 1e-5},
                                {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0},
                                                  {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}}}});
    } else if (name == "qwen3_0.6b") {
        writeLlamaLike(dir, g, {{"model_type", "qwen3"}, {"rope_theta", 1000000.0}, {"rms_norm_eps", 1e-6}});
    } else if (name == "gemma3_1b") {
        writeLlamaLike(dir, g, {{"model_type", "gemma3_text"}, {"rope_theta", 1000000.0}, {"rope_local_base_freq", 10000.0},
                                {"sliding_window", quick ? 64 : 512}, {"sliding_window_pattern", 6}, {"query_pre_attn_scalar", 256}});
    } else if (name == "bert_base") {
        writeEncoder(dir, "bert", g, 0);
    } else {
        writeEncoder(dir, "modernbert", g, quick ? 16 : 128);
    }
}

}  // namespace headscope::cli
