#pragma once
// Reading a whole small file (a vocabulary, merges, tokenizer.json) with a size limit, and
// one IoError "cannot read <what> '<path>': <why>" otherwise.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/IoError.h"

namespace headscope::text {

inline std::string readSmallFile(const std::string& path, std::uintmax_t limit, const std::string& what) {
    const auto fail = [&](const std::string& why) { throw io::IoError("cannot read " + what + " '" + path + "': " + why); };
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) fail("the file does not exist");
    if (!std::filesystem::is_regular_file(status)) fail("it is not a regular file");
    const auto size = std::filesystem::file_size(path, error);
    if (error) fail("its size cannot be determined");
    if (size > limit) fail("it is " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(limit >> 20) + " MB");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("it cannot be opened");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (static_cast<std::uintmax_t>(in.gcount()) != size) fail("the file ended early while reading");
    return bytes;
}

}  // namespace headscope::text
