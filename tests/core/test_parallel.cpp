// parallelFor: every index exactly once and finished on return, whatever the thread count; the
// first exception comes back to the caller (in parallel, after every other index ran); nested and concurrent loops work (the
// analysis, equivalence and circuits threads each run their own loops at once); the helpers are
// started once, not per loop, and keep the process's CPU affinity (the pool steers no thread).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "Parallel.h"

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

using namespace headscope;

// Work long enough (~20 us) that helper threads take part, then count the index.
void busy(std::atomic<int>& counter) {
    volatile double x = 1;
    for (int k = 0; k < 20000; ++k) x = x * 1.0000001;
    ++counter;
}

TEST(ParallelFor, EveryIndexExactlyOnceAndDoneOnReturn) {
    for (int count : {0, 1, 2, 3, 7, 64, 1000}) {
        std::vector<std::atomic<int>> runs(count);
        parallelFor(count, [&](int i) { busy(runs[i]); });
        for (int i = 0; i < count; ++i) ASSERT_EQ(runs[i].load(), 1) << "count " << count << ", index " << i;
    }
}

TEST(ParallelFor, TheFirstExceptionReachesTheCallerAfterTheOthersRan) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallelFor(50, [&](int i) {
        if (i == 10) throw std::runtime_error("task 10");
        busy(ran);
    }), std::runtime_error);
    if (workerThreads() > 1) { EXPECT_EQ(ran.load(), 49); }  // a failure does not stop the other indices
}

TEST(ParallelFor, NestedAndConcurrentLoops) {
    std::atomic<long> sum{0};
    auto nested = [&] {
        parallelFor(8, [&](int i) { parallelFor(8, [&](int j) { sum += i * 8 + j; }); });
    };
    std::thread other(nested);
    nested();
    other.join();
    EXPECT_EQ(sum.load(), 2 * (63 * 64 / 2));
}

TEST(ParallelFor, ReturnsBeforeLateHelpersAndTheyDoNothing) {
    // Many short loops in a row: helpers that start after their loop returned must find no
    // index (they would touch a task that no longer exists). Run under ASan to see it.
    for (int round = 0; round < 2000; ++round) {
        std::vector<int> hits(4, 0);
        parallelFor(4, [&hits](int i) { ++hits[i]; });
        for (int i = 0; i < 4; ++i) ASSERT_EQ(hits[i], 1);
    }
}

#if defined(__linux__)
TEST(ParallelFor, HelpersAreStartedOnceNotPerLoop) {
    // Kernel thread ids are not reused soon, unlike std::thread::id: a thread per loop would
    // show hundreds of them.
    std::mutex mutex;
    std::set<pid_t> threads;
    for (int round = 0; round < 200; ++round)
        parallelFor(8, [&](int) {
            std::atomic<int> ignored{0};
            busy(ignored);
            const std::lock_guard<std::mutex> lock(mutex);
            threads.insert(gettid());
        });
    EXPECT_LE(static_cast<int>(threads.size()), workerThreads());
    EXPECT_GE(static_cast<int>(threads.size()), 1);
}

TEST(ParallelFor, HelpersKeepTheProcesssCpuAffinity) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    if (workerThreads() < 2 || CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one core or one thread: no helpers";
    // A helper's own affinity: every core the process may use, as it inherited it.
    const pid_t caller = gettid();
    std::atomic<int> helper_cores{-1};
    for (int round = 0; round < 200 && helper_cores.load() < 0; ++round)
        parallelFor(16, [&](int) {
            std::atomic<int> ignored{0};
            busy(ignored);
            if (gettid() == caller) return;
            cpu_set_t mine;
            CPU_ZERO(&mine);
            if (sched_getaffinity(0, sizeof mine, &mine) == 0) helper_cores = CPU_COUNT(&mine);
        });
    ASSERT_GE(helper_cores.load(), 0) << "no helper ran a task in 200 loops";
    EXPECT_EQ(helper_cores.load(), CPU_COUNT(&allowed));
    cpu_set_t callers;
    CPU_ZERO(&callers);
    ASSERT_EQ(sched_getaffinity(0, sizeof callers, &callers), 0);
    EXPECT_TRUE(CPU_EQUAL(&callers, &allowed)) << "the caller's affinity changed";
}
#endif
