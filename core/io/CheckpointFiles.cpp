#include "io/CheckpointFiles.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"
#include "io/Safetensors.h"
#include "Parallel.h"

namespace headscope::io::checkpoint {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
constexpr std::uintmax_t kMaxIndexBytes = 64 << 20;

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
        case DType::BF16:  // the upper 16 bits of a float: exact
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint32_t bits = std::uint32_t(src[2 * i] | src[2 * i + 1] << 8) << 16;
                dst[i] = std::bit_cast<float>(bits);
            }
            break;
    }
}

std::string readSmallFile(const std::string& path, std::uintmax_t limit, const std::function<void(const std::string&)>& fail) {
    std::error_code error;
    if (!fs::exists(path, error)) fail("the file does not exist");
    if (!fs::is_regular_file(path, error)) fail("it is not a regular file");
    if (fs::file_size(path, error) > limit) fail("it is larger than " + std::to_string(limit >> 20) + " MB");
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

const char* dtypeName(DType type) { return type == DType::F32 ? "F32" : type == DType::F16 ? "F16" : "BF16"; }

// ---- config.json -------------------------------------------------------------------------

json readConfigJson(const std::string& path, const std::string& family) {
    const auto fail = [&](const std::string& why) { throw IoError("cannot read " + family + " config '" + path + "': " + why); };
    const std::string text = readSmallFile(path, kMaxConfigBytes, fail);
    json config;
    try {
        config = parseJsonText(text, "it");  // nesting bounded, errors in plain words
    } catch (const IoError& error) {
        fail(error.what());
    }
    if (!config.is_object()) fail("it is not a JSON object");
    return config;
}

void ConfigFields::fail(const std::string& why) const {
    throw IoError("cannot read " + family_ + " config '" + path_ + "': " + why);
}

int ConfigFields::integer(const std::string& key, int low, int high, std::optional<int> fallback) const {
    if (!has(key)) {
        if (fallback) return *fallback;
        fail("it has no \"" + key + "\"");
    }
    const nlohmann::json& value = config_[key];
    if (!value.is_number_integer()) fail("\"" + key + "\" is not a whole number");
    if (value.is_number_unsigned() && value.get<unsigned long long>() > std::uint64_t(high))  // past long long too
        fail("\"" + key + "\" is " + value.dump() + "; supported: " + std::to_string(low) + " to " + std::to_string(high));
    const auto number = value.get<long long>();
    if (number < low || number > high)
        fail("\"" + key + "\" is " + std::to_string(number) + "; supported: " + std::to_string(low) + " to " +
             std::to_string(high));
    return static_cast<int>(number);
}

bool ConfigFields::boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_boolean()) fail("\"" + key + "\" is not true or false");
    return config_[key].get<bool>();
}

double ConfigFields::number(const std::string& key, double low, double high, std::optional<double> fallback) const {
    if (!has(key)) {
        if (fallback) return *fallback;
        fail("it has no \"" + key + "\"");
    }
    if (!config_[key].is_number()) fail("\"" + key + "\" is not a number");
    const double value = config_[key].get<double>();
    if (!(value > low && value < high))
        fail("\"" + key + "\" " + config_[key].dump() + " is not between " + nlohmann::json(low).dump() + " and " + nlohmann::json(high).dump());
    return value;
}

std::string ConfigFields::string(const std::string& key, std::optional<std::string> fallback) const {
    if (!has(key)) {
        if (fallback) return *fallback;
        fail("it has no \"" + key + "\"");
    }
    if (!config_[key].is_string()) fail("\"" + key + "\" is not a string");
    return config_[key].get<std::string>();
}

// ---- tensors -----------------------------------------------------------------------------

TensorTable::TensorTable(const std::string& directory, const TableLayout& layout, int n_layer, ProgressReporter* progress)
    : unprefixed_(layout.unprefixed) {
    const fs::path dir(directory);
    std::error_code error;
    const fs::path single = dir / "model.safetensors", index_path = dir / "model.safetensors.index.json";
    if (fs::exists(single, error)) {
        path_ = single.string();
        addFile(path_, nullptr);
    } else if (fs::exists(index_path, error)) {
        path_ = index_path.string();
        const std::string text = readSmallFile(path_, kMaxIndexBytes, [&](const std::string& why) { fail(why); });
        json parsed;
        try {
            parsed = parseJsonText(text, "it");
        } catch (const IoError& e) {
            fail(e.what());
        }
        if (!parsed.is_object() || !parsed.contains("weight_map") || !parsed["weight_map"].is_object())
            fail("it has no \"weight_map\" object naming each tensor's file");
        std::map<std::string, std::string> weight_map;
        std::set<std::string> shards;
        for (const auto& [name, file] : parsed["weight_map"].items()) {
            if (!file.is_string()) fail("the weight_map entry of " + quote(name) + " is not a file name");
            const std::string shard = file.get<std::string>();
            if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
                shard == "." || shard == "..")
                fail("the weight_map names the file " + quote(shard) + ", which is not a file beside the index");
            weight_map.emplace(name, shard);
            shards.insert(shard);
        }
        if (shards.empty()) fail("its weight_map is empty");
        for (const std::string& shard : shards)
            if (!fs::is_regular_file(dir / shard, error))
                fail("the shard " + quote(shard) + " it lists is missing from the folder");
        int done = 0;
        for (const std::string& shard : shards) {
            ++done;
            if (progress) progress->step(0, 0.05, done, int(shards.size()),
                                         "reading shard " + std::to_string(done) + " of " + std::to_string(shards.size()));
            addFile((dir / shard).string(), &weight_map);
        }
        std::set<std::string> held;
        for (const Stored& t : stored_) held.insert(t.source.name);
        for (const auto& [name, shard] : weight_map)
            if (!held.count(name))
                fail("the weight_map puts " + quote(name) + " in " + quote(shard) + ", which does not hold it");
    } else if (fs::exists(dir / "pytorch_model.bin", error)) {
        throw IoError("cannot open checkpoint '" + directory +
                      "': it has only pytorch_model.bin (a pickle, which HeadScope never reads); convert it once, in that "
                      "folder, with: python3 -c \"import torch; from safetensors.torch import save_file; "
                      "save_file({k: v.contiguous().clone() for k, v in torch.load('pytorch_model.bin', "
                      "map_location='cpu').items()}, 'model.safetensors', metadata={'format': 'pt'})\"");
    } else {
        throw IoError("cannot open checkpoint '" + directory +
                      "': it has no model.safetensors (nor model.safetensors.index.json for a sharded model)");
    }
    index(layout, n_layer);
    if (!contains(layout.probe))
        fail("it has no tensor '" + layout.probe + "' (with or without a prefix): is this a " + layout.family +
             " checkpoint?");
}

void TensorTable::addFile(const std::string& file, const std::map<std::string, std::string>* weight_map) {
    SafetensorsReader reader(file);  // validates the header against the file (IoError)
    const int file_index = static_cast<int>(files_.size());
    files_.push_back(file);
    const std::string shard = fs::path(file).filename().string();
    for (const std::string& full : reader.names()) {
        if (weight_map) {
            const auto it = weight_map->find(full);
            if (it == weight_map->end() || it->second != shard) continue;  // the index names another file for it
        }
        Stored stored;
        stored.source.name = full;
        stored.source.shape = reader.shape(full);
        stored.source.file = file_index;
        std::tie(stored.source.offset, stored.source.bytes) = reader.byteRange(full);
        stored.dtype = reader.dtype(full);
        stored_.push_back(std::move(stored));
    }
}

void TensorTable::index(const TableLayout& layout, int n_layer) {
    for (const std::string& p : layout.prefixes)
        if (std::any_of(stored_.begin(), stored_.end(), [&](const Stored& t) { return t.source.name == p + layout.probe; }))
            prefix_ = p;
    for (Stored& stored : stored_) {
        Source& s = stored.source;
        const std::string& full = s.name;
        std::string name = full;
        if (!prefix_.empty() && startsWith(name, prefix_)) name = name.substr(prefix_.size());
        if (layout.skip && layout.skip(name)) continue;
        // "h.12.ln_1.weight" with n_layer 12: the config and the tensors disagree.
        if (startsWith(name, layout.block_prefix)) {
            const std::size_t from = layout.block_prefix.size(), dot = name.find('.', from);
            const std::string number = name.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
            if (!number.empty() && number.size() <= 6 && std::all_of(number.begin(), number.end(), ::isdigit) &&
                std::stoi(number) >= n_layer)
                fail("it has tensor " + quote(full) + " for block " + number + ", but config.json says " +
                     (layout.block_prefix == "h." ? "n_layer " : "num_hidden_layers ") + std::to_string(n_layer));
        }
        const auto type = dtypeOf(stored.dtype);
        if (!type) {
            if (layout.is_weight && layout.is_weight(name))
                fail("tensor " + quote(full) + " has dtype " + quote(stored.dtype, 16) + "; " + layout.family +
                     " weights must be F32, F16 or BF16");
            continue;  // something else (e.g. an unrelated buffer): not used
        }
        s.type = *type;
        tensors_.emplace(name, std::move(s));
    }
    stored_.clear();
}

const Source& TensorTable::get(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) {
        const bool bare = std::find(unprefixed_.begin(), unprefixed_.end(), name) != unprefixed_.end();
        fail("it has no tensor '" + (bare ? std::string() : prefix_) + name + "'");
    }
    if (it->second.shape != shape)
        fail("tensor '" + it->second.name + "' has shape " + shapeToString(it->second.shape) + " but " + why + " needs " +
             shapeToString(shape));
    return it->second;
}

Source rowsOf(const Source& s, std::int64_t first, std::int64_t count) {
    Source part = s;
    const std::uint64_t row_bytes = s.bytes / std::uint64_t(s.shape[0]);
    part.offset += row_bytes * std::uint64_t(first);
    part.bytes = row_bytes * std::uint64_t(count);
    part.shape[0] = count;
    return part;
}

void TensorTable::fail(const std::string& why) const { throw IoError("cannot load '" + path_ + "': " + why); }

void TensorTable::open() {
    for (const std::string& file : files_) maps_.push_back(std::make_shared<const MappedFile>(file));
    for (const auto& [name, s] : tensors_)
        if (s.offset + s.bytes > maps_[s.file]->size()) fail("the file changed while it was being read");
}

void TensorTable::decodeChecked(const Source& s, std::uint64_t first, std::size_t count, float* dst) const {
    decodeRun(maps_[s.file]->data() + s.offset + first * itemBytes(s.type), s.type, count, dst);
    if (Eigen::Map<const Eigen::ArrayXf>(dst, static_cast<Eigen::Index>(count)).allFinite()) return;
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(dst[i])) failNonFinite(s, dst[i], first + i);
}

void TensorTable::failNonFinite(const Source& s, float value, std::uint64_t flat) const {
    std::string where = std::to_string(flat);
    if (s.shape.size() == 2)
        where = "[" + std::to_string(flat / s.shape[1]) + ", " + std::to_string(flat % s.shape[1]) + "]";
    throw IoError("cannot load '" + files_[s.file] + "': tensor '" + s.name + "' has the value " +
                  (std::isnan(value) ? "NaN" : value > 0 ? "+infinity" : "-infinity") + " at " + where +
                  ": the checkpoint is damaged or overflowed when it was saved");
}

void TensorTable::vector(const Source& s, Eigen::RowVectorXf& out) const {
    out.resize(static_cast<Eigen::Index>(s.bytes / itemBytes(s.type)));
    constexpr std::size_t kChunk = 1 << 20;  // values per step: 4 MB of F32
    const std::size_t count = static_cast<std::size_t>(out.size());
    for (std::size_t start = 0; start < count; start += kChunk) {
        const std::size_t n = std::min(kChunk, count - start);
        decodeChecked(s, start, n, out.data() + start);
        maps_[s.file]->release(s.offset + start * itemBytes(s.type), n * itemBytes(s.type));
    }
}

void TensorTable::columns(const Source& s, Eigen::MatrixXf& out) const {
    // row-major (r, c) is column-major (c, r): one straight copy.
    out.resize(static_cast<Eigen::Index>(s.shape[1]), static_cast<Eigen::Index>(s.shape[0]));
    rowsAsColumns(s, 0, s.shape[0], out, 0);
}

void TensorTable::rowsAsColumns(const Source& s, Eigen::Index row_begin, Eigen::Index count, Eigen::MatrixXf& dst,
                                Eigen::Index dst_col) const {
    const Eigen::Index cols = s.shape[1];
    constexpr Eigen::Index kChunkRows = 1024;
    for (Eigen::Index r = 0; r < count; r += kChunkRows) {
        const Eigen::Index n = std::min(kChunkRows, count - r);
        const std::uint64_t first = std::uint64_t(row_begin + r) * cols;
        decodeChecked(s, first, static_cast<std::size_t>(n * cols), dst.col(dst_col + r).data());
        maps_[s.file]->release(s.offset + first * itemBytes(s.type), std::uint64_t(n * cols) * itemBytes(s.type));
    }
}

void TensorTable::checkFinite(const Source& s) const {
    const unsigned char* data = maps_[s.file]->data() + s.offset;
    const std::size_t count = s.bytes / itemBytes(s.type);
    constexpr std::size_t kChunk = 1 << 20;  // values per step
    const std::size_t chunks = (count + kChunk - 1) / kChunk;
    // Each chunk tested on the cores (the file read once, at the disk's or the page cache's pace);
    // the first bad one, in order, then named with its position (decodeChecked throws).
    std::vector<char> finite(chunks, 1);
    parallelFor(static_cast<int>(chunks), [&](int chunk) {
        const std::size_t start = std::size_t(chunk) * kChunk, n = std::min(kChunk, count - start);
        std::uint32_t any = 0;
        if (s.type == DType::F32) {  // an exponent of all ones is an infinity or a NaN
            for (std::size_t i = 0; i < n; ++i) {
                const unsigned char* v = data + 4 * (start + i);
                const std::uint32_t bits = std::uint32_t(v[0]) | std::uint32_t(v[1]) << 8 | std::uint32_t(v[2]) << 16 |
                                           std::uint32_t(v[3]) << 24;
                any |= std::uint32_t((bits & 0x7F800000u) == 0x7F800000u);
            }
        } else {
            const std::uint16_t exponent = s.type == DType::BF16 ? 0x7F80 : 0x7C00;
            for (std::size_t i = 0; i < n; ++i) {
                const auto bits = static_cast<std::uint16_t>(data[2 * (start + i)] | data[2 * (start + i) + 1] << 8);
                any |= std::uint32_t((bits & exponent) == exponent);
            }
            maps_[s.file]->release(s.offset + start * 2, n * 2);  // converted later, when used
        }
        finite[std::size_t(chunk)] = any == 0;
    }, chunks > 1);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk)
        if (!finite[chunk]) {
            const std::size_t start = chunk * kChunk, n = std::min(kChunk, count - start);
            std::vector<float> values(n);
            decodeChecked(s, start, n, values.data());  // throws with the position
        }
}

model::LinearWeight TensorTable::linear(const Source& s, model::LinearWeight::Layout layout, int layer,
                                        const std::shared_ptr<model::ConversionCache>& cache) const {
    checkFinite(s);
    const Eigen::Index rows = s.shape[0], cols = s.shape[1];
    const bool out_in = layout == model::LinearWeight::Layout::OutIn;
    const model::StorageType type = s.type == DType::F32   ? model::StorageType::F32
                                    : s.type == DType::F16 ? model::StorageType::F16
                                                           : model::StorageType::BF16;
    return model::LinearWeight::stored(maps_[s.file], maps_[s.file]->data() + s.offset, type, layout,
                                       out_in ? rows : cols, out_in ? cols : rows, layer, cache);
}

}  // namespace headscope::io::checkpoint
