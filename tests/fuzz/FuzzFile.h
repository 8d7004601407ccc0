#pragma once
// A fuzz input as a real, regular file without touching the disk: an anonymous memory
// file (memfd) reached through /proc/self/fd, so the readers run exactly as on a user's
// file (open, stat, seek, read) at memory speed.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

class FuzzFile {
public:
    FuzzFile() : fd_(::memfd_create("headscope-fuzz", 0)) {
        if (fd_ < 0) std::abort();
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~FuzzFile() { ::close(fd_); }
    FuzzFile(const FuzzFile&) = delete;
    FuzzFile& operator=(const FuzzFile&) = delete;

    // Replaces the file's content with these bytes; returns its path.
    const std::string& write(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) std::abort();
        for (std::size_t done = 0; done < size;) {
            const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) std::abort();
            done += static_cast<std::size_t>(n);
        }
        return path_;
    }

    const std::string& path() const { return path_; }

private:
    int fd_;
    std::string path_;
};

// Every message a reader gives must be one line of bounded length: the contract the
// quoting helper (io/Quote.h) keeps. Aborts (a finding) otherwise.
inline void checkMessage(const char* message) {
    const std::string text = message;
    if (text.size() > 2000 || text.find('\n') != std::string::npos || text.find('\r') != std::string::npos) std::abort();
}
