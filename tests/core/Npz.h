#pragma once
// NumPy's .npz for tests: a zip archive of .npy files, stored or deflated (np.savez and
// np.savez_compressed). Each member is inflated with zlib and read by io::readNpy through a
// temporary file. The archives read are the project's own references (../shared/hf-reference),
// so this handles what NumPy writes, not every zip: local headers, no zip64, no encryption.

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "io/Npy.h"

namespace headscope::test_support {

inline std::map<std::string, io::Tensor> readNpz(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string zip((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto u16 = [&](std::size_t at) { return std::uint32_t(std::uint8_t(zip[at]) | std::uint8_t(zip[at + 1]) << 8); };
    const auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
    const std::filesystem::path scratch =
        std::filesystem::temp_directory_path() / ("headscope_npz_" + std::to_string(::getpid()) + ".npy");
    std::map<std::string, io::Tensor> members;
    std::size_t at = 0;
    while (at + 30 <= zip.size() && u32(at) == 0x04034b50) {  // local file header
        const std::uint32_t flags = u16(at + 6), method = u16(at + 8);
        std::uint32_t packed = u32(at + 18), size = u32(at + 22);
        const std::uint32_t name_length = u16(at + 26), extra_length = u16(at + 28);
        const std::string name = zip.substr(at + 30, name_length);
        const std::size_t data = at + 30 + name_length + extra_length;
        // NumPy writes zip64 members: the sizes are 0xFFFFFFFF here and 64-bit in extra field 0x0001
        // (uncompressed size first, then compressed).
        for (std::size_t e = at + 30 + name_length; e + 4 <= data;) {
            const std::uint32_t id = u16(e), length = u16(e + 2);
            if (id == 1 && length >= 16) {
                if (size == 0xFFFFFFFFu) size = u32(e + 4);
                if (packed == 0xFFFFFFFFu) packed = u32(e + 12);
            }
            e += 4 + length;
        }
        if (data + packed > zip.size() || size > (1u << 30))
            throw std::runtime_error(path.string() + ": member " + name + " is truncated or too large");
        if (flags & 8)  // sizes after the data (a streamed write): find them in the central directory
            throw std::runtime_error(path.string() + ": member " + name + " has a data descriptor, not supported");
        std::string bytes(size, '\0');
        if (method == 0) {
            bytes = zip.substr(data, size);
        } else if (method == 8) {  // raw deflate
            z_stream z{};
            if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zip.data() + data));
            z.avail_in = packed;
            z.next_out = reinterpret_cast<Bytef*>(bytes.data());
            z.avail_out = size;
            const int status = inflate(&z, Z_FINISH);
            inflateEnd(&z);
            if (status != Z_STREAM_END) throw std::runtime_error(path.string() + ": member " + name + " does not inflate");
        } else {
            throw std::runtime_error(path.string() + ": member " + name + " uses compression method " +
                                     std::to_string(method));
        }
        // io::readNpy reads floats: an int64 array (the ids) becomes float32 here, exact below 2^24.
        const std::size_t descr = bytes.find("'descr': '<i8'");
        if (bytes.size() > 10 && bytes[6] == 1 && descr != std::string::npos) {
            const std::size_t header_end = 10 + (std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8);
            std::string converted = bytes.substr(0, header_end);
            converted.replace(descr, 14, "'descr': '<f4'");
            for (std::size_t i = header_end; i + 8 <= bytes.size(); i += 8) {
                std::int64_t value;
                std::memcpy(&value, bytes.data() + i, 8);
                const auto f = static_cast<float>(value);
                converted.append(reinterpret_cast<const char*>(&f), 4);
            }
            bytes = std::move(converted);
        }
        std::ofstream(scratch, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        members[name.substr(0, name.size() - (name.ends_with(".npy") ? 4 : 0))] = io::readNpy(scratch.string());
        at = data + packed;
    }
    std::filesystem::remove(scratch);
    if (members.empty()) throw std::runtime_error(path.string() + " holds no .npy member");
    return members;
}

}  // namespace headscope::test_support
