#pragma once
// How HeadScope's programs use the C allocator: a process-wide setting, so it is made by each
// program's main() (gui_main.cpp, cli/CommandLine.cpp's commandLineMain), never by core, which
// may be embedded in other programs.

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace headscope {

// Keeps freed memory for the next analysis instead of handing it back to the kernel (glibc;
// a no-op elsewhere). Every analysis allocates its layer anew (BERT-base: 4 matrices of 2.4 MB,
// 48 double factors of 0.4 MB; a forward's Q, K, V and output of 0.4 MB each) and frees the
// last one. glibc's dynamic thresholds follow the largest freed chunk: mmap above it, trim the
// heap when more than twice it is free at the top; so every change unmapped or trimmed those
// blocks and faulted them back in, page by page (the forward took over half as long again).
// Blocks up to 32 MiB now come from the heap and up to 256 MiB of free heap is kept (less than
// one large-geometry analysis holds). Idempotent; call it before the first analysis.
inline void keepFreedMemory() {
#if defined(__GLIBC__)
    static const bool once = [] {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        return true;
    }();
    (void)once;
#endif
}

}  // namespace headscope
