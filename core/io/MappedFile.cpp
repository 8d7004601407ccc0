#include "io/MappedFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/IoError.h"

namespace headscope::io {

MappedFile::MappedFile(const std::string& path) {
    const auto fail = [&](const std::string& why) { throw IoError("cannot map '" + path + "': " + why); };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(std::strerror(errno));
    struct stat status {};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        ::close(fd);
        fail("it is not a regular file");
    }
    if (status.st_size <= 0) {
        ::close(fd);
        fail("it is empty");
    }
    size_ = static_cast<std::uint64_t>(status.st_size);
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);  // the map keeps the file open
    if (map == MAP_FAILED) fail(std::strerror(map_errno));
    // Normal read-ahead, not MADV_SEQUENTIAL: F32 tensors are used in place from this map for as
    // long as the model lives and read again by every forward, so pages behind the reader must
    // not be dropped early (release() hands back only what has been converted).
    ::madvise(map, size_, MADV_NORMAL);
    data_ = static_cast<const unsigned char*>(map);
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

void MappedFile::release(std::uint64_t offset, std::uint64_t length) const {
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t end = std::min(size_, offset + length);
    const std::uint64_t first = (offset + page - 1) / page * page, last = end / page * page;
    if (last <= first) return;
    ::madvise(const_cast<unsigned char*>(data_) + first, last - first, MADV_DONTNEED);
    released_ += last - first;
}

}  // namespace headscope::io
