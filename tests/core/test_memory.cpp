// keepFreedMemory: large blocks come from the heap afterwards, so freeing a layer does not
// unmap it and the next analysis does not fault it back in page by page.
#include <gtest/gtest.h>

#include <cstdlib>

#include "Memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kOwnAllocator = true;  // ASan's allocator ignores mallopt
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kOwnAllocator = true;
#else
constexpr bool kOwnAllocator = false;
#endif
#else
constexpr bool kOwnAllocator = false;
#endif

#if defined(__GLIBC__)
// Whether a fresh block of `bytes` is given its own mapping (glibc's mmap path).
bool mappedOnItsOwn(std::size_t bytes) {
    const int before = mallinfo2().hblks;
    char* volatile block = static_cast<char*>(std::malloc(bytes));  // volatile: not elided
    block[0] = 1;
    const int during = mallinfo2().hblks;
    std::free(block);
    return during > before;
}
#endif

}  // namespace

TEST(Memory, LayerSizedBlocksComeFromTheHeapOnceFreedMemoryIsKept) {
#if !defined(__GLIBC__)
    GTEST_SKIP() << "glibc only";
#else
    if (kOwnAllocator) GTEST_SKIP() << "the sanitizer's allocator ignores mallopt";
    const std::size_t forward_q = 128 * 768 * sizeof(float);  // a BERT-base forward's Q: 384 KiB
    EXPECT_TRUE(mappedOnItsOwn(forward_q)) << "glibc's default: blocks over 128 KiB are mapped";
    headscope::keepFreedMemory();
    headscope::keepFreedMemory();  // idempotent
    EXPECT_FALSE(mappedOnItsOwn(forward_q));
    EXPECT_FALSE(mappedOnItsOwn(std::size_t(9) << 20));  // a BERT-base layer, 9.4 MB
    EXPECT_TRUE(mappedOnItsOwn(std::size_t(64) << 20));  // beyond 32 MiB: still mapped
#endif
}
