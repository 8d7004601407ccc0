#pragma once
// A read-only memory map of a whole regular file (POSIX mmap), for converting large
// checkpoints straight into matrices without a second copy in memory. release() hands
// pages already converted back to the kernel (LinearWeight: those of converted layers, of the
// embeddings, and of every weight streamed on a long input), so that peak memory stays near
// the size of what is converted plus the part being read.
// A file truncated by another program while mapped can still stop the process (SIGBUS):
// the usual caveat of memory maps, accepted for checkpoint files.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace headscope::io {

class MappedFile {
public:
    // IoError ("cannot map '<path>': ...") when the file is missing, not regular, empty or unmappable.
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const unsigned char* data() const { return data_; }
    std::uint64_t size() const { return size_; }
    // Drops the whole pages inside [offset, offset + length) from this process's memory.
    void release(std::uint64_t offset, std::uint64_t length) const;
    std::uint64_t releasedBytes() const { return released_; }  // dropped so far, in bytes (tests)

private:
    const unsigned char* data_ = nullptr;
    std::uint64_t size_ = 0;
    mutable std::atomic<std::uint64_t> released_ = 0;
};

}  // namespace headscope::io
