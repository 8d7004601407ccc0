#pragma once
// What every Hugging Face checkpoint loader shares (io/Checkpoint.h dispatches to one per
// family): reading config.json's fields with one-sentence errors, and the table of a folder's
// safetensors tensors, one model.safetensors or the shards a model.safetensors.index.json
// lists (its "weight_map"), each tensor named without the family's prefix ("model.",
// "transformer.", "gpt_neox."). Shapes are checked against what config.json implies before
// any tensor data is read; then the files are memory-mapped. The attention matrices, norms and
// biases are converted (F32, F16 or BF16 -> float) into the model, releasing the mapped pages as
// it goes; the MLP and embedding matrices become LinearWeights over the map (F32 used in place,
// F16/BF16 converted when a layer is computed). Every tensor is scanned once and refused in one
// IoError if it holds a NaN or an infinity.
// For core/ sources only: it includes nlohmann/json.

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/LoadProgress.h"
#include "io/MappedFile.h"
#include "model/LinearWeight.h"

namespace headscope::io::checkpoint {

// ---- config.json -------------------------------------------------------------------------

// config.json as a JSON object; IoError "cannot read <family> config '<path>': ..." otherwise.
nlohmann::json readConfigJson(const std::string& path, const std::string& family);

// Typed fields of config.json, each error one sentence naming the file and the key.
class ConfigFields {
public:
    ConfigFields(const nlohmann::json& config, std::string path, std::string family)
        : config_(config), path_(std::move(path)), family_(std::move(family)) {}

    bool has(const std::string& key) const { return config_.contains(key) && !config_[key].is_null(); }
    int integer(const std::string& key, int low, int high, std::optional<int> fallback = std::nullopt) const;
    bool boolean(const std::string& key, bool fallback) const;
    // A number in (low, high); fallback when absent.
    double number(const std::string& key, double low, double high, std::optional<double> fallback = std::nullopt) const;
    std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt) const;
    const nlohmann::json& object() const { return config_; }
    [[noreturn]] void fail(const std::string& why) const;

private:
    const nlohmann::json& config_;
    std::string path_, family_;
};

// ---- tensors -----------------------------------------------------------------------------

enum class DType { F32, F16, BF16 };
const char* dtypeName(DType type);

// One tensor of a mapped file: where its bytes are and how to read them.
struct Source {
    std::string name;  // as stored (with prefix)
    DType type = DType::F32;
    std::vector<std::int64_t> shape;
    int file = 0;             // index into the table's files
    std::uint64_t offset = 0;  // in that file
    std::uint64_t bytes = 0;
};

// Rows [first, first + count) of a row-major (rows, cols) tensor, as a tensor of its own: a fused
// tensor's parts (Phi-3's gate_up_proj, ModernBERT's Wi halves).
Source rowsOf(const Source& s, std::int64_t first, std::int64_t count);

struct TableLayout {
    std::string family;                      // "GPT-2", for messages
    std::vector<std::string> prefixes;       // stripped from stored names, e.g. {"transformer."}
    std::string probe;                       // a tensor every checkpoint of the family has (unprefixed)
    std::string block_prefix;                // "h." or "layers.": block indices checked against n_layer
    std::vector<std::string> unprefixed;     // names that never carry the prefix ("lm_head.weight")
    std::function<bool(const std::string&)> skip;       // buffers that are not weights
    std::function<bool(const std::string&)> is_weight;  // names that must be F32, F16 or BF16
};

// The tensors of a folder's model.safetensors or of the shards its
// model.safetensors.index.json lists, by name without prefix.
class TensorTable {
public:
    // `progress` (optional) hears "reading shard i of n" between 0 and 0.05.
    TensorTable(const std::string& directory, const TableLayout& layout, int n_layer, ProgressReporter* progress = nullptr);

    const std::string& path() const { return path_; }  // model.safetensors or the index
    const std::string& prefix() const { return prefix_; }
    bool contains(const std::string& name) const { return tensors_.count(name) > 0; }
    // The tensor, checked to have `shape`; `why` says where the expected shape comes from.
    const Source& get(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why) const;
    [[noreturn]] void fail(const std::string& why) const;

    // Maps the files (call once every tensor's shape has been checked with get()).
    void open();
    // Row-major tensor straight into floats: a vector, or a (rows, cols) tensor as a
    // column-major (cols, rows) matrix (nn.Linear's (out, in) weight becomes W (in, out)).
    void vector(const Source& s, Eigen::RowVectorXf& out) const;
    void columns(const Source& s, Eigen::MatrixXf& out) const;
    // Rows [row_begin, row_begin + count) of a row-major (rows, cols) tensor as the columns of
    // dst (cols, count) starting at column dst_col (dst already sized).
    void rowsAsColumns(const Source& s, Eigen::Index row_begin, Eigen::Index count, Eigen::MatrixXf& dst,
                       Eigen::Index dst_col) const;
    // A (rows, cols) tensor as a LinearWeight W (out, in) over the map, after the finiteness scan:
    // OutIn takes it as nn.Linear's (out, in), InOut as Conv1D's (in, out). `layer` keys the cache.
    model::LinearWeight linear(const Source& s, model::LinearWeight::Layout layout, int layer,
                               const std::shared_ptr<model::ConversionCache>& cache) const;

private:
    struct Stored {
        Source source;
        std::string dtype;
    };
    void addFile(const std::string& file, const std::map<std::string, std::string>* weight_map);
    void index(const TableLayout& layout, int n_layer);
    void decodeChecked(const Source& s, std::uint64_t first, std::size_t count, float* dst) const;
    [[noreturn]] void failNonFinite(const Source& s, float value, std::uint64_t flat) const;
    void checkFinite(const Source& s) const;  // the whole tensor, without converting it

    std::string path_, prefix_;
    std::vector<std::string> unprefixed_;
    std::vector<std::string> files_;
    std::vector<std::shared_ptr<const MappedFile>> maps_;
    std::vector<Stored> stored_;  // every file's tensors until index() names them
    std::map<std::string, Source> tensors_;
};

}  // namespace headscope::io::checkpoint
