#include "io/Safetensors.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <string_view>

#include <Eigen/Core>

#include "io/BinaryFile.h"
#include "io/JsonText.h"
#include "io/Quote.h"

namespace headscope::io {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;  // the limit of the reference implementation

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();


std::uint64_t littleEndian(const unsigned char* bytes, std::size_t count) {
    std::uint64_t value = 0;
    for (std::size_t i = count; i-- > 0;) value = (value << 8) | bytes[i];
    return value;
}

// Bytes per element of every dtype the format defines; nullopt for unknown names.
std::optional<std::uint64_t> itemSize(const std::string& dtype) {
    static const std::map<std::string, std::uint64_t> sizes = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
        {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"I64", 8},     {"U64", 8}, {"F64", 8}};
    const auto it = sizes.find(dtype);
    return it == sizes.end() ? std::nullopt : std::optional(it->second);
}

float bitsToFloat(std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// A JSON integer in [0, int64 max], or IoError with `what` in the message.
std::int64_t nonNegativeInteger(const json& value, const std::string& what) {
    if (value.is_number_unsigned()) {
        const auto number = value.get<std::uint64_t>();
        if (number > static_cast<std::uint64_t>(kInt64Max)) throw IoError(what + " " + std::to_string(number) + " is too large");
        return static_cast<std::int64_t>(number);
    }
    if (value.is_number_integer()) {
        const auto number = value.get<std::int64_t>();
        if (number < 0) throw IoError(what + " is negative (" + std::to_string(number) + ")");
        return number;
    }
    throw IoError(what + " is not an integer");
}

}  // namespace

// ---- Reading -----------------------------------------------------------------------

SafetensorsReader::SafetensorsReader(const std::string& path) : path_(path) {
    try {
        load();
    } catch (const IoError& error) {
        fail(error.what());
    } catch (const std::bad_alloc&) {
        fail("not enough memory for its header");
    }
}

void SafetensorsReader::load() {
    std::uint64_t file_size = 0;
    file_ = openForReading(path_, file_size);

    if (file_size < 8)
        throw IoError("it is only " + std::to_string(file_size) + " bytes long, too short for the 8-byte header length");
    std::array<unsigned char, 8> length_bytes{};
    readAt(file_, 0, reinterpret_cast<char*>(length_bytes.data()), 8);
    const std::uint64_t header_length = littleEndian(length_bytes.data(), 8);
    if (header_length > file_size - 8)
        throw IoError("its header length " + std::to_string(header_length) + " runs past the end of the file (" +
                      std::to_string(file_size) + " bytes)");
    if (header_length > kMaxSafetensorsHeaderBytes)
        throw IoError("its header length " + std::to_string(header_length) + " exceeds the limit of 100 MB");

    std::string text(header_length, '\0');
    readAt(file_, 8, text.data(), text.size());
    const json header = parseJsonText(text, "its header");
    if (!header.is_object()) throw IoError("its header is not a JSON object");

    data_start_ = 8 + header_length;
    const std::uint64_t buffer_size = file_size - data_start_;
    for (const auto& [name, value] : header.items()) {
        if (name == "__metadata__") continue;
        const std::string tensor = "tensor " + quote(name);
        if (!value.is_object()) throw IoError(tensor + " is not described by a JSON object");
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!value.contains(key)) throw IoError(tensor + " has no \"" + key + "\" entry");
        const json& dtype = value["dtype"];
        const json& shape = value["shape"];
        const json& offsets = value["data_offsets"];
        if (!dtype.is_string()) throw IoError(tensor + " has a \"dtype\" that is not a string");
        if (!shape.is_array()) throw IoError(tensor + " has a \"shape\" that is not a list");
        if (!offsets.is_array() || offsets.size() != 2)
            throw IoError(tensor + " has \"data_offsets\" that are not a [begin, end] pair");

        Entry entry;
        entry.dtype = dtype.get<std::string>();
        for (const json& dim : shape) entry.shape.push_back(nonNegativeInteger(dim, tensor + ": a dimension"));
        entry.begin = static_cast<std::uint64_t>(nonNegativeInteger(offsets[0], tensor + ": data begin offset"));
        entry.end = static_cast<std::uint64_t>(nonNegativeInteger(offsets[1], tensor + ": data end offset"));
        if (entry.begin > entry.end)
            throw IoError(tensor + " has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                          "] with begin after end");
        if (entry.end > buffer_size)
            throw IoError(tensor + " has data ending at byte " + std::to_string(entry.end) + ", beyond the " +
                          std::to_string(buffer_size) + " data bytes in the file");
        const auto count = checkedElementCount(entry.shape);
        if (!count) throw IoError(tensor + " has shape " + shapeToString(entry.shape) + " with too many elements");
        const std::uint64_t bytes = entry.end - entry.begin;
        const auto elements = static_cast<std::uint64_t>(*count);
        if (const auto size = itemSize(entry.dtype)) {
            const bool overflows = elements > std::numeric_limits<std::uint64_t>::max() / *size;
            if (overflows || elements * *size != bytes)
                throw IoError(tensor + " of shape " + shapeToString(entry.shape) + " and dtype " + entry.dtype + " needs " +
                              (overflows ? "more than 2^64" : std::to_string(elements * *size)) +
                              " bytes, but its data_offsets span " + std::to_string(bytes) + " bytes");
        } else if (elements / 8 > bytes) {
            // A dtype this reader does not know (a newer format version) cannot be read, but its
            // shape is still shown: it must not claim more elements than its bytes can hold
            // at one bit each, or a tiny file could describe a gigantic layer.
            throw IoError(tensor + " of shape " + shapeToString(entry.shape) + " and unknown dtype " +
                          quote(entry.dtype, 16) + " claims more elements than its " + std::to_string(bytes) +
                          " data bytes can hold");
        }
        entries_.emplace(name, std::move(entry));
    }

    // Non-empty data ranges must not overlap (that would let a small file claim huge data).
    std::vector<const std::pair<const std::string, Entry>*> by_offset;
    for (const auto& item : entries_)
        if (item.second.end > item.second.begin) by_offset.push_back(&item);
    std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->second.begin < b->second.begin; });
    for (std::size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->second.begin < by_offset[i - 1]->second.end)
            throw IoError("the data of tensors " + quote(by_offset[i - 1]->first) + " and " + quote(by_offset[i]->first) +
                          " overlap");
}

std::vector<std::string> SafetensorsReader::names() const {
    std::vector<std::string> result;
    for (const auto& item : entries_) result.push_back(item.first);
    return result;
}

const SafetensorsReader::Entry& SafetensorsReader::entry(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it == entries_.end()) fail("it has no tensor named " + quote(name));
    return it->second;
}

const std::vector<std::int64_t>& SafetensorsReader::shape(const std::string& name) const { return entry(name).shape; }

std::pair<std::uint64_t, std::uint64_t> SafetensorsReader::byteRange(const std::string& name) const {
    const Entry& e = entry(name);
    return {data_start_ + e.begin, e.end - e.begin};
}

const std::string& SafetensorsReader::dtype(const std::string& name) const { return entry(name).dtype; }

void SafetensorsReader::fail(const std::string& why) const {
    throw IoError("cannot read .safetensors file " + quotePath(path_) + ": " + why);
}

Tensor SafetensorsReader::read(const std::string& name) {
    enum class Kind { F32, F64, F16, BF16 };
    static const std::map<std::string, Kind> kinds = {
        {"F32", Kind::F32}, {"F64", Kind::F64}, {"F16", Kind::F16}, {"BF16", Kind::BF16}};
    const Entry& e = entry(name);
    const auto kind_it = kinds.find(e.dtype);
    if (kind_it == kinds.end())
        fail("tensor " + quote(name) + " has dtype " + quote(e.dtype, 16) +
             ", which cannot be converted to float (supported: F32, F64, F16, BF16)");
    const Kind kind = kind_it->second;
    const std::uint64_t size = *itemSize(e.dtype);

    Tensor tensor;
    tensor.shape = e.shape;
    try {
        tensor.data.resize(static_cast<std::size_t>((e.end - e.begin) / size));  // checked against the file
        std::vector<unsigned char> chunk;
        for (std::size_t start = 0; start < tensor.data.size(); start += kConvertChunkValues) {
            const std::size_t count = std::min(kConvertChunkValues, tensor.data.size() - start);
            chunk.resize(count * size);
            readAt(file_, data_start_ + e.begin + start * size, reinterpret_cast<char*>(chunk.data()), chunk.size());
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint64_t bits = littleEndian(chunk.data() + i * size, size);
                float& out = tensor.data[start + i];
                switch (kind) {
                    case Kind::F32: out = bitsToFloat(static_cast<std::uint32_t>(bits)); break;
                    case Kind::F16:
                        out = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(bits)));
                        break;
                    case Kind::BF16:
                        out = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<std::uint16_t>(bits)));
                        break;
                    case Kind::F64: {
                        double value;
                        std::memcpy(&value, &bits, sizeof value);
                        out = static_cast<float>(value);
                        if (std::isinf(out) && std::isfinite(value))
                            throw IoError("tensor " + quote(name) + " has the float64 value " + shortNumber(value) +
                                          " at flat index " + std::to_string(start + i) + ", outside the float32 range");
                        break;
                    }
                }
            }
        }
    } catch (const IoError& error) {
        fail(error.what());
    } catch (const std::bad_alloc&) {
        fail("not enough memory for tensor " + quote(name));
    }
    return tensor;
}

std::map<std::string, Tensor> readSafetensors(const std::string& path) {
    SafetensorsReader reader(path);
    std::map<std::string, Tensor> tensors;
    for (const std::string& name : reader.names()) tensors.emplace(name, reader.read(name));
    return tensors;
}

// ---- Writing -----------------------------------------------------------------------

void writeSafetensors(const std::string& path, const std::map<std::string, Tensor>& tensors) {
    const auto fail = [&](const std::string& why) { throw IoError("cannot write .safetensors file " + quotePath(path) + ": " + why); };

    json header = json::object();
    std::uint64_t offset = 0;
    for (const auto& [name, tensor] : tensors) {
        if (name == "__metadata__") fail("\"__metadata__\" is reserved and cannot name a tensor");
        const auto count = checkedElementCount(tensor.shape);
        if (!count || static_cast<std::uint64_t>(*count) != tensor.data.size())
            fail("tensor " + quote(name) + " of shape " + shapeToString(tensor.shape) + " holds " +
                 std::to_string(tensor.data.size()) + " values, which does not match its shape");
        const std::uint64_t end = offset + tensor.data.size() * 4;
        header[name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string text;
    try {
        text = header.dump();
    } catch (const json::exception&) {
        fail("a tensor name is not valid UTF-8");
    }
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) fail("it cannot be opened for writing");
    std::array<char, 8> length{};
    for (std::size_t i = 0; i < 8; ++i) length[i] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    out.write(length.data(), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));

    std::vector<unsigned char> chunk;
    for (const auto& item : tensors) {
        const std::vector<float>& data = item.second.data;
        for (std::size_t start = 0; start < data.size(); start += kConvertChunkValues) {
            const std::size_t end = std::min(data.size(), start + kConvertChunkValues);
            chunk.resize((end - start) * 4);
            for (std::size_t i = start; i < end; ++i) {
                std::uint32_t bits;
                std::memcpy(&bits, &data[i], sizeof bits);
                for (std::size_t b = 0; b < 4; ++b) chunk[(i - start) * 4 + b] = static_cast<unsigned char>(bits >> (8 * b));
            }
            out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
        }
    }
    out.close();
    if (!out) fail("writing failed (disk full?)");
}

}  // namespace headscope::io
