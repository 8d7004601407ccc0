#include "io/Gpt2Checkpoint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <set>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "Config.h"
#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"
#include "io/MappedFile.h"
#include "io/Safetensors.h"
#include "text/Gpt2Tokenizer.h"

namespace headscope::io {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;

// ---- config.json ---------------------------------------------------------------------

int intField(const json& config, const std::string& key, int low, int high, const std::string& path,
             std::optional<int> fallback = std::nullopt) {
    const auto fail = [&](const std::string& why) {
        throw IoError("cannot read GPT-2 config '" + path + "': " + why);
    };
    if (!config.contains(key) || config[key].is_null()) {
        if (fallback) return *fallback;
        fail("it has no \"" + key + "\"");
    }
    const json& value = config[key];
    if (!value.is_number_integer()) fail("\"" + key + "\" is not a whole number");
    const auto number = value.get<long long>();
    if (number < low || number > high)
        fail("\"" + key + "\" is " + std::to_string(number) + "; supported: " + std::to_string(low) + " to " +
             std::to_string(high));
    return static_cast<int>(number);
}

bool boolField(const json& config, const std::string& key, bool fallback, const std::string& path) {
    if (!config.contains(key) || config[key].is_null()) return fallback;
    if (!config[key].is_boolean())
        throw IoError("cannot read GPT-2 config '" + path + "': \"" + key + "\" is not true or false");
    return config[key].get<bool>();
}

// ---- tensor conversion -----------------------------------------------------------------

enum class DType { F32, F16, BF16 };

std::optional<DType> dtypeOf(const std::string& name) {
    if (name == "F32") return DType::F32;
    if (name == "F16") return DType::F16;
    if (name == "BF16") return DType::BF16;
    return std::nullopt;
}

std::size_t itemBytes(DType t) { return t == DType::F32 ? 4 : 2; }

// count little-endian values of type t at src -> float at dst.
void decodeRun(const unsigned char* src, DType t, std::size_t count, float* dst) {
    switch (t) {
        case DType::F32:
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(dst, src, count * 4);
            } else {
                for (std::size_t i = 0; i < count; ++i) {
                    const std::uint32_t bits = std::uint32_t(src[4 * i]) | std::uint32_t(src[4 * i + 1]) << 8 |
                                               std::uint32_t(src[4 * i + 2]) << 16 | std::uint32_t(src[4 * i + 3]) << 24;
                    dst[i] = std::bit_cast<float>(bits);
                }
            }
            break;
        case DType::F16:
            for (std::size_t i = 0; i < count; ++i) {
                const auto bits = static_cast<std::uint16_t>(src[2 * i] | src[2 * i + 1] << 8);
                dst[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));  // exact
            }
            break;
        case DType::BF16:
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint32_t bits = std::uint32_t(src[2 * i] | src[2 * i + 1] << 8) << 16;
                dst[i] = std::bit_cast<float>(bits);
            }
            break;
    }
}

// One tensor of the mapped file: where its bytes are and how to read them.
struct Source {
    std::string name;
    DType type = DType::F32;
    std::vector<std::int64_t> shape;
    std::uint64_t offset = 0;  // in the file
    std::uint64_t bytes = 0;
};

class Converter {
public:
    Converter(const std::string& path, const MappedFile& map) : path_(path), map_(map) {}

    // Row-major (rows, cols) straight into `count` floats (a column-major (cols, rows) matrix
    // or a vector), releasing the mapped pages chunk by chunk.
    void straight(const Source& s, float* dst) const {
        const std::size_t count = static_cast<std::size_t>(s.bytes / itemBytes(s.type));
        constexpr std::size_t kChunk = 1 << 20;  // values per step: 4 MB of F32
        for (std::size_t start = 0; start < count; start += kChunk) {
            const std::size_t n = std::min(kChunk, count - start);
            const std::uint64_t at = s.offset + start * itemBytes(s.type);
            decodeRun(map_.data() + at, s.type, n, dst + start);
            map_.release(at, n * itemBytes(s.type));
        }
        checkFinite(s, dst, count);
    }

    // Columns [col_begin, col_begin + width) of a row-major (rows, cols) tensor -> dst (rows, width)
    // column-major, in 64 x 64 tiles (a cache-friendly transpose).
    void transposed(const Source& s, Eigen::Index col_begin, Eigen::Index width, Eigen::MatrixXf& dst) const {
        const Eigen::Index rows = s.shape[0], cols = s.shape[1];
        dst.resize(rows, width);
        constexpr Eigen::Index kTile = 64;
        std::array<float, kTile> row{};
        const std::size_t item = itemBytes(s.type);
        for (Eigen::Index r0 = 0; r0 < rows; r0 += kTile)
            for (Eigen::Index c0 = 0; c0 < width; c0 += kTile) {
                const Eigen::Index n = std::min(kTile, width - c0);
                for (Eigen::Index r = r0; r < std::min(rows, r0 + kTile); ++r) {
                    decodeRun(map_.data() + s.offset + (std::uint64_t(r) * cols + col_begin + c0) * item, s.type,
                              static_cast<std::size_t>(n), row.data());
                    for (Eigen::Index j = 0; j < n; ++j) dst(r, c0 + j) = row[j];
                }
            }
        for (Eigen::Index c = 0; c < width; ++c)
            for (Eigen::Index r = 0; r < rows; ++r)
                if (!std::isfinite(dst(r, c))) failNonFinite(s, dst(r, c), r * cols + col_begin + c);
    }

    void release(const Source& s) const { map_.release(s.offset, s.bytes); }

private:
    void checkFinite(const Source& s, const float* data, std::size_t count) const {
        if (Eigen::Map<const Eigen::ArrayXf>(data, static_cast<Eigen::Index>(count)).allFinite()) return;
        for (std::size_t i = 0; i < count; ++i)
            if (!std::isfinite(data[i])) failNonFinite(s, data[i], static_cast<Eigen::Index>(i));
    }

    [[noreturn]] void failNonFinite(const Source& s, float value, Eigen::Index flat) const {
        std::string where = std::to_string(flat);
        if (s.shape.size() == 2)
            where = "[" + std::to_string(flat / s.shape[1]) + ", " + std::to_string(flat % s.shape[1]) + "]";
        throw IoError("cannot load '" + path_ + "': tensor '" + s.name + "' has the value " +
                      (std::isnan(value) ? "NaN" : value > 0 ? "+infinity" : "-infinity") + " at " + where +
                      ": the checkpoint is damaged or overflowed when it was saved");
    }

    std::string path_;
    const MappedFile& map_;
};

// Model.safetensors' tensors by the name without prefix, with their shapes checked.
class TensorTable {
public:
    TensorTable(const std::string& path, const model::ModelConfig& config) : path_(path) {
        SafetensorsReader reader(path);  // validates the header against the file (IoError)
        const std::vector<std::string> names = reader.names();
        const bool prefixed = reader.contains("transformer.wte.weight");
        prefix_ = prefixed ? "transformer." : "";

        // Offsets: the reader checked them, so only the numbers are taken from the header here.
        std::ifstream in(path, std::ios::binary);
        std::array<unsigned char, 8> length_bytes{};
        in.read(reinterpret_cast<char*>(length_bytes.data()), 8);
        std::uint64_t header_length = 0;
        for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | length_bytes[i];
        std::string header_text(static_cast<std::size_t>(header_length), '\0');
        in.read(header_text.data(), static_cast<std::streamsize>(header_text.size()));
        if (!in) fail("the file changed while it was being read");
        const json header = json::parse(header_text, nullptr, false);
        if (header.is_discarded()) fail("the file changed while it was being read");
        const std::uint64_t data_start = 8 + header_length;

        for (const std::string& full : names) {
            std::string name = full;
            if (prefixed && name.rfind(prefix_, 0) == 0) name = name.substr(prefix_.size());
            const std::string& dtype = reader.dtype(full);
            Source s;
            s.name = full;
            s.shape = reader.shape(full);
            try {
                const auto& offsets = header.at(full).at("data_offsets");
                s.offset = data_start + offsets.at(0).get<std::uint64_t>();
                s.bytes = offsets.at(1).get<std::uint64_t>() - offsets.at(0).get<std::uint64_t>();
            } catch (const json::exception&) {
                fail("the file changed while it was being read");
            }
            if (isMaskBuffer(name)) continue;
            checkBlockIndex(name, full, config.n_layer);
            const auto type = dtypeOf(dtype);
            if (!type) {
                if (isWeightName(name))
                    fail("tensor " + quote(full) + " has dtype " + quote(dtype, 16) + "; GPT-2 weights must be F32, F16 or BF16");
                continue;  // something else (e.g. an unrelated buffer): not used
            }
            s.type = *type;
            tensors_.emplace(name, std::move(s));
        }
        if (!tensors_.count("wte.weight"))
            fail("it has no token embedding 'wte.weight' (nor 'transformer.wte.weight'): is this a GPT-2 checkpoint?");
    }

    const std::string& prefix() const { return prefix_; }
    bool contains(const std::string& name) const { return tensors_.count(name) > 0; }

    // The tensor, checked to have `shape`; `why` says where the expected shape comes from.
    const Source& get(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why) const {
        const auto it = tensors_.find(name);
        if (it == tensors_.end()) fail("it has no tensor '" + prefixFor(name) + name + "'");
        if (it->second.shape != shape)
            fail("tensor '" + it->second.name + "' has shape " + shapeToString(it->second.shape) + " but " + why +
                 " needs " + shapeToString(shape));
        return it->second;
    }

    [[noreturn]] void fail(const std::string& why) const {
        throw IoError("cannot load '" + path_ + "': " + why);
    }

private:
    std::string prefixFor(const std::string& name) const { return name == "lm_head.weight" ? "" : prefix_; }

    static bool isMaskBuffer(const std::string& name) {
        const auto ends = [&](const std::string& suffix) {
            return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        return name.rfind("h.", 0) == 0 && (ends(".attn.bias") || ends(".attn.masked_bias"));
    }
    static bool isWeightName(const std::string& name) {
        return name.rfind("h.", 0) == 0 || name.rfind("wte.", 0) == 0 || name.rfind("wpe.", 0) == 0 ||
               name.rfind("ln_f.", 0) == 0 || name == "lm_head.weight";
    }
    // "h.12.ln_1.weight" with n_layer 12: the config and the tensors disagree.
    void checkBlockIndex(const std::string& name, const std::string& full, int n_layer) const {
        if (name.rfind("h.", 0) != 0) return;
        const std::size_t dot = name.find('.', 2);
        const std::string index = name.substr(2, dot == std::string::npos ? std::string::npos : dot - 2);
        if (index.empty() || index.size() > 6 || !std::all_of(index.begin(), index.end(), ::isdigit)) return;
        if (std::stoi(index) >= n_layer)
            fail("it has tensor " + quote(full) + " for block " + index + ", but config.json says n_layer " +
                 std::to_string(n_layer));
    }

    std::string path_;
    std::string prefix_;
    std::map<std::string, Source> tensors_;
};

}  // namespace

model::ModelConfig readGpt2Config(const std::string& path) {
    const auto fail = [&](const std::string& why) { throw IoError("cannot read GPT-2 config '" + path + "': " + why); };
    std::error_code error;
    if (!fs::exists(path, error)) fail("the file does not exist");
    if (!fs::is_regular_file(path, error)) fail("it is not a regular file");
    if (fs::file_size(path, error) > kMaxConfigBytes) fail("it is larger than 1 MB");
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json config;
    try {
        config = parseJsonText(text, "it");  // nesting bounded, errors in plain words
    } catch (const IoError& error) {
        fail(error.what());
    }
    if (!config.is_object()) fail("it is not a JSON object");

    if (config.contains("model_type") && config["model_type"] != "gpt2")
        fail("\"model_type\" is " + quote(config["model_type"].dump(), 40) + "; only \"gpt2\" checkpoints can be opened");
    model::ModelConfig c;
    c.n_layer = intField(config, "n_layer", 1, 256, path);
    c.n_head = intField(config, "n_head", 1, Limits::kMaxHeads, path);
    c.n_embd = intField(config, "n_embd", 1, Limits::kMaxDModel, path);
    // Older configs give the context as n_ctx only.
    const bool has_positions = config.contains("n_positions") && !config["n_positions"].is_null();
    c.n_positions = intField(config, has_positions || !config.contains("n_ctx") ? "n_positions" : "n_ctx", 1,
                             Limits::kMaxSeqLen, path);
    c.vocab_size = intField(config, "vocab_size", 1, 10'000'000, path);
    c.n_inner = intField(config, "n_inner", 1, 16 * Limits::kMaxDModel, path, 4 * c.n_embd);
    if (c.n_embd % c.n_head != 0)
        fail("n_embd " + std::to_string(c.n_embd) + " is not divisible by n_head " + std::to_string(c.n_head));
    if (config.contains("layer_norm_epsilon")) {
        if (!config["layer_norm_epsilon"].is_number()) fail("\"layer_norm_epsilon\" is not a number");
        c.layer_norm_epsilon = config["layer_norm_epsilon"].get<double>();
        if (!(c.layer_norm_epsilon > 0 && c.layer_norm_epsilon < 1))
            fail("\"layer_norm_epsilon\" " + config["layer_norm_epsilon"].dump() + " is not between 0 and 1");
    }
    if (config.contains("activation_function")) {
        if (!config["activation_function"].is_string()) fail("\"activation_function\" is not a string");
        c.activation_name = config["activation_function"].get<std::string>();
    }
    if (c.activation_name == "gelu_new" || c.activation_name == "gelu_pytorch_tanh")
        c.activation = model::Activation::GeluTanh;
    else if (c.activation_name == "gelu")
        c.activation = model::Activation::GeluErf;
    else if (c.activation_name == "relu")
        c.activation = model::Activation::Relu;
    else
        fail("\"activation_function\" " + quote(c.activation_name, 40) +
             " is not supported (supported: gelu_new, gelu_pytorch_tanh, gelu, relu)");
    c.scale_attn_weights = boolField(config, "scale_attn_weights", true, path);
    c.tie_word_embeddings = boolField(config, "tie_word_embeddings", true, path);
    if (boolField(config, "scale_attn_by_inverse_layer_idx", false, path))
        fail("\"scale_attn_by_inverse_layer_idx\" is true, which is not supported");
    if (boolField(config, "add_cross_attention", false, path))
        fail("\"add_cross_attention\" is true: encoder-decoder GPT-2 models are not supported");
    return c;
}

model::ModelPtr loadGpt2Checkpoint(const std::string& directory) {
    std::error_code error;
    if (!fs::exists(directory, error))
        throw IoError("cannot open GPT-2 checkpoint '" + directory + "': the directory does not exist");
    if (!fs::is_directory(directory, error))
        throw IoError("cannot open GPT-2 checkpoint '" + directory +
                      "': it is not a directory (give the folder holding config.json and model.safetensors)");
    const fs::path dir(directory);
    for (const char* name : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        if (!fs::exists(dir / name, error))
            throw IoError("cannot open GPT-2 checkpoint '" + directory + "': it has no " + name +
                          (std::string(name) == "model.safetensors" ? " (pytorch_model.bin cannot be read: save with safe_serialization=True)" : ""));

    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readGpt2Config((dir / "config.json").string());
    const std::string weights_path = (dir / "model.safetensors").string();

    try {
        const TensorTable table(weights_path, c);
        const std::int64_t d = c.n_embd, inner = c.n_inner, vocab = c.vocab_size;
        const std::string config_says = "config.json (n_embd " + std::to_string(d) + ")";
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& wte = table.get("wte.weight", {vocab, d},
                                      "config.json (vocab_size " + std::to_string(vocab) + ", n_embd " + std::to_string(d) + ")");
        const Source& wpe = table.get("wpe.weight", {c.n_positions, d},
                                      "config.json (n_positions " + std::to_string(c.n_positions) + ", n_embd " +
                                          std::to_string(d) + ")");
        struct BlockSources {
            const Source *ln_1_w, *ln_1_b, *attn_w, *attn_b, *proj_w, *proj_b, *ln_2_w, *ln_2_b, *fc_w, *fc_b, *mproj_w, *mproj_b;
        };
        std::vector<BlockSources> blocks;
        const std::string inner_says = "config.json (n_embd " + std::to_string(d) + ", n_inner " + std::to_string(inner) + ")";
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string h = "h." + std::to_string(l) + ".";
            blocks.push_back({&table.get(h + "ln_1.weight", {d}, config_says), &table.get(h + "ln_1.bias", {d}, config_says),
                              &table.get(h + "attn.c_attn.weight", {d, 3 * d}, config_says),
                              &table.get(h + "attn.c_attn.bias", {3 * d}, config_says),
                              &table.get(h + "attn.c_proj.weight", {d, d}, config_says),
                              &table.get(h + "attn.c_proj.bias", {d}, config_says),
                              &table.get(h + "ln_2.weight", {d}, config_says), &table.get(h + "ln_2.bias", {d}, config_says),
                              &table.get(h + "mlp.c_fc.weight", {d, inner}, inner_says),
                              &table.get(h + "mlp.c_fc.bias", {inner}, inner_says),
                              &table.get(h + "mlp.c_proj.weight", {inner, d}, inner_says),
                              &table.get(h + "mlp.c_proj.bias", {d}, config_says)});
        }
        const Source& ln_f_w = table.get("ln_f.weight", {d}, config_says);
        const Source& ln_f_b = table.get("ln_f.bias", {d}, config_says);
        if (!c.tie_word_embeddings && !table.contains("lm_head.weight"))
            table.fail("config.json says tie_word_embeddings false but there is no 'lm_head.weight'");
        const Source* lm_head = table.contains("lm_head.weight")
                                    ? &table.get("lm_head.weight", {vocab, d}, "config.json (vocab_size " + std::to_string(vocab) + ", n_embd " + std::to_string(d) + ")")
                                    : nullptr;
        model->dtype = wte.type == DType::F32 ? "F32" : wte.type == DType::F16 ? "F16" : "BF16";

        const MappedFile map(weights_path);
        for (const Source* s : {&wte, &wpe, &ln_f_w, &ln_f_b, lm_head})
            if (s && s->offset + s->bytes > map.size()) table.fail("the file changed while it was being read");
        for (const BlockSources& b : blocks)
            for (const Source* s : {b.ln_1_w, b.ln_1_b, b.attn_w, b.attn_b, b.proj_w, b.proj_b, b.ln_2_w, b.ln_2_b, b.fc_w,
                                    b.fc_b, b.mproj_w, b.mproj_b})
                if (s->offset + s->bytes > map.size()) table.fail("the file changed while it was being read");
        const Converter convert(weights_path, map);
        const auto vector = [&](const Source* s, Eigen::RowVectorXf& out) {
            out.resize(static_cast<Eigen::Index>(s->shape[0]));
            convert.straight(*s, out.data());
        };
        const auto columns = [&](const Source& s, Eigen::MatrixXf& out) {  // row-major (r, c) -> (c, r)
            out.resize(static_cast<Eigen::Index>(s.shape[1]), static_cast<Eigen::Index>(s.shape[0]));
            convert.straight(s, out.data());
        };
        columns(wte, model->wte_t);
        columns(wpe, model->wpe_t);
        const int heads = c.n_head, d_k = c.headDim();
        for (const BlockSources& s : blocks) {
            model::Block block;
            vector(s.ln_1_w, block.ln_1.weight);
            vector(s.ln_1_b, block.ln_1.bias);
            Weights& w = block.attention;
            w.heads = w.kv_heads = heads;
            w.d_k = w.d_v = d_k;
            // c_attn (d, 3d) = [W_Q | W_K | W_V], c_proj (d, d) = W_O, all in X W layout.
            convert.transposed(*s.attn_w, 0, d, w.W_Q);
            convert.transposed(*s.attn_w, d, d, w.W_K);
            convert.transposed(*s.attn_w, 2 * d, d, w.W_V);
            convert.release(*s.attn_w);
            convert.transposed(*s.proj_w, 0, d, w.W_O);
            convert.release(*s.proj_w);
            Eigen::RowVectorXf qkv_bias;
            vector(s.attn_b, qkv_bias);
            w.b_Q = qkv_bias.segment(0, d);
            w.b_K = qkv_bias.segment(d, d);
            w.b_V = qkv_bias.segment(2 * d, d);
            vector(s.proj_b, w.b_O);
            vector(s.ln_2_w, block.ln_2.weight);
            vector(s.ln_2_b, block.ln_2.bias);
            columns(*s.fc_w, block.W_fc_t);
            vector(s.fc_b, block.b_fc);
            columns(*s.mproj_w, block.W_proj_t);
            vector(s.mproj_b, block.b_proj);
            model->blocks.push_back(std::move(block));
        }
        vector(&ln_f_w, model->ln_f.weight);
        vector(&ln_f_b, model->ln_f.bias);
        if (lm_head) columns(*lm_head, model->lm_head_t);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }

    std::shared_ptr<const text::Gpt2Tokenizer> tokenizer;
    try {
        tokenizer = std::make_shared<const text::Gpt2Tokenizer>(
            text::Gpt2Tokenizer::fromFiles((dir / "vocab.json").string(), (dir / "merges.txt").string()));
    } catch (const std::invalid_argument& e) {
        throw IoError("cannot read vocabulary '" + (dir / "vocab.json").string() + "': " + e.what());
    }
    if (tokenizer->idLimit() > c.vocab_size) {
        const int id = tokenizer->idLimit() - 1;
        throw IoError("cannot open GPT-2 checkpoint '" + directory + "': vocab.json has token id " + std::to_string(id) +
                      " (" + quote(tokenizer->vocabString(id)) + ") but config.json says vocab_size " +
                      std::to_string(c.vocab_size));
    }
    model->tokenizer = std::move(tokenizer);
    return model;
}

}  // namespace headscope::io
