#pragma once
// Hugging Face .safetensors files: an 8-byte little-endian header length, a JSON header
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {...}} and the raw little-endian tensor bytes, offsets relative to
// the end of the header. F32, F64, F16 and BF16 tensors are converted to float; a float64
// value too large for float32 is an error. "__metadata__" is ignored.
// Every problem with a file is reported as one IoError naming the file (and tensor).

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/Tensor.h"

namespace headscope::io {

// An open .safetensors file. The constructor reads and validates the whole header
// (types, shapes, offsets inside the file, sizes matching shapes, no overlapping data),
// so shapes can be inspected before any tensor data is read.
class SafetensorsReader {
public:
    explicit SafetensorsReader(const std::string& path);

    const std::string& path() const { return path_; }
    std::vector<std::string> names() const;  // sorted
    bool contains(const std::string& name) const { return entries_.count(name) > 0; }
    // IoError when the tensor is absent.
    const std::vector<std::int64_t>& shape(const std::string& name) const;
    const std::string& dtype(const std::string& name) const;
    // Where the tensor's bytes are in the file: {offset from the file's start, length}, checked
    // to lie inside the file by the constructor. IoError when the tensor is absent.
    std::pair<std::uint64_t, std::uint64_t> byteRange(const std::string& name) const;

    // The tensor's values as float; IoError for dtypes other than F32, F64, F16, BF16.
    Tensor read(const std::string& name);

private:
    struct Entry {
        std::string dtype;
        std::vector<std::int64_t> shape;
        std::uint64_t begin = 0, end = 0;  // byte range inside the data buffer
    };

    void load();
    const Entry& entry(const std::string& name) const;
    [[noreturn]] void fail(const std::string& why) const;

    std::string path_;
    std::ifstream file_;
    std::uint64_t data_start_ = 0;  // file offset of the data buffer
    std::map<std::string, Entry> entries_;
};

// Every tensor in the file.
std::map<std::string, Tensor> readSafetensors(const std::string& path);

// Writes every tensor as F32 (header padded with spaces to a multiple of 8 bytes).
void writeSafetensors(const std::string& path, const std::map<std::string, Tensor>& tensors);

}  // namespace headscope::io
