#pragma once
// Reading untrusted binary files: only regular files, only the bytes asked for, and a
// clear IoError for everything else. Shared by the .npy and safetensors readers.

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace headscope::io {

// Values converted per read of a tensor's data (.npy, safetensors): a bounded buffer.
inline constexpr std::size_t kConvertChunkValues = 1 << 16;

// Opens a regular file (never a FIFO or device, which could block or never end) and
// reports its size in bytes.
std::ifstream openForReading(const std::string& path, std::uint64_t& size);

// Reads exactly count bytes at offset, or throws IoError.
void readAt(std::ifstream& in, std::uint64_t offset, char* destination, std::size_t count);

}  // namespace headscope::io
