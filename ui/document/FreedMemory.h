#pragma once
// A long input's maps, once freed, stay in the C allocator's heaps: glibc keeps freed blocks of up
// to 32 MiB for the next analysis (app/Memory.h), in the heap of each thread that had allocated
// them. A 2,042-token text on the Llama 3.2 1B geometry left 0.9-1.3 GB of them after each change,
// and the next text's forward, on another thread's heap, took as much again: peaks of 3.6-4.8 GiB
// over three changes for 2.3 GiB in use. Handing them back to the kernel (glibc's malloc_trim)
// once such an analysis is replaced keeps the peak near what is in use. A no-op elsewhere.

#include <atomic>
#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace headscope::ui {

// How many times handBackFreedMemory() ran (tests).
inline std::atomic<int>& freedMemoryHandBacks() {
    static std::atomic<int> count{0};
    return count;
}

// The free pages of every heap back to the kernel; the blocks stay the allocator's. Tens of ms
// for a gigabyte: call it off the GUI thread.
inline void handBackFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    ++freedMemoryHandBacks();
}

}  // namespace headscope::ui
