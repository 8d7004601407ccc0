// keepFreedMemory (app/Memory.h, called by the programs' main()): large blocks come from the
// heap afterwards, so freeing a layer does not unmap it and the next analysis does not fault it
// back in page by page. Core leaves the allocator alone: an analysis changes no setting.
#include <gtest/gtest.h>

#include <cstdlib>

#include "Analysis.h"
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
    // glibc's default maps blocks over 128 KiB until a larger mapped block is freed, whose size its
    // dynamic threshold then follows: so when this test runs alone (as ctest runs it), not after the
    // engine's tests of 1,000-token maps in one process.
    if (::testing::UnitTest::GetInstance()->test_to_run_count() == 1) {
        EXPECT_TRUE(mappedOnItsOwn(forward_q)) << "glibc's default: blocks over 128 KiB are mapped";
    }
    headscope::Config bert_base;
    bert_base.d_model = 768;
    bert_base.heads = 12;
    (void)headscope::analyze(bert_base, false);
    // glibc raises its mmap threshold by itself to the largest block freed (a few MB here), so
    // the probe is a block larger than any of an analysis and below keepFreedMemory's 32 MiB.
    EXPECT_TRUE(mappedOnItsOwn(std::size_t(24) << 20)) << "an analysis changed the allocator's settings";
    headscope::keepFreedMemory();
    headscope::keepFreedMemory();  // idempotent
    EXPECT_FALSE(mappedOnItsOwn(forward_q));
    EXPECT_FALSE(mappedOnItsOwn(std::size_t(9) << 20));  // a BERT-base layer, 9.4 MB
    EXPECT_FALSE(mappedOnItsOwn(std::size_t(24) << 20));
    EXPECT_TRUE(mappedOnItsOwn(std::size_t(64) << 20));  // beyond 32 MiB: still mapped
#endif
}
