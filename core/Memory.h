#pragma once
// How HeadScope's processes use the C allocator.

namespace headscope {

// Keeps freed memory for the next analysis instead of handing it back to the kernel (glibc;
// a no-op elsewhere). Every analysis allocates its layer anew (BERT-base: 4 matrices of 2.4 MB,
// 48 double factors of 0.4 MB; a forward's Q, K, V and output of 0.4 MB each) and frees the
// last one. glibc's dynamic thresholds follow the largest freed chunk: mmap above it, trim the
// heap when more than twice it is free at the top; so every change unmapped or trimmed those
// blocks and faulted them back in, page by page (BERT-base forward 5.3 ms instead of 3.1).
// Blocks up to 32 MiB now come from the heap and up to 256 MiB of free heap is kept (less than
// one large-geometry analysis holds). Idempotent; call it before the first analysis.
void keepFreedMemory();

}  // namespace headscope
