#pragma once
// Bytes of files and values, for the tests that build binary files by hand (.npy, safetensors).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace headscope::test {

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bytes of a value in little- or big-endian order (this host is little-endian).
template <class T>
std::string bytesOf(T value, bool big_endian = false) {
    std::string bytes(sizeof(T), '\0');
    std::memcpy(bytes.data(), &value, sizeof(T));
    if (big_endian) std::reverse(bytes.begin(), bytes.end());
    return bytes;
}

template <class T>
std::string bytesOf(const std::vector<T>& values, bool big_endian = false) {
    std::string bytes;
    for (T value : values) bytes += bytesOf(value, big_endian);
    return bytes;
}

inline std::uint32_t bitsOf(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

}  // namespace headscope::test
