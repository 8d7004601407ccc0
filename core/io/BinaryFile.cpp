#include "io/BinaryFile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/IoError.h"

namespace headscope::io {

std::ifstream openForReading(const std::string& path, std::uint64_t& size) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) throw IoError("the file does not exist");
    if (std::filesystem::is_directory(status)) throw IoError("it is a directory, not a file");
    if (!std::filesystem::is_regular_file(status)) throw IoError("it is not a regular file");
    size = std::filesystem::file_size(path, error);
    if (error) throw IoError("its size cannot be determined (" + error.message() + ")");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError(std::string("it cannot be opened (") + (errno ? std::strerror(errno) : "unknown reason") + ")");
    return in;
}

void readAt(std::ifstream& in, std::uint64_t offset, char* destination, std::size_t count) {
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(destination, static_cast<std::streamsize>(count));
    if (!in || static_cast<std::size_t>(in.gcount()) != count)
        throw IoError("the file ended early while reading (was it changed while being read?)");
}

}  // namespace headscope::io
