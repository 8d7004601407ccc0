#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace headscope {

int workerThreads() {
    // HEADSCOPE_THREADS=N overrides the core count (for benchmarks and comparisons).
    static const int threads = [] {
        if (const char* env = std::getenv("HEADSCOPE_THREADS"); env && std::atoi(env) > 0)
            return std::min(std::atoi(env), 256);
        return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }();
    return threads;
}

void parallelFor(int count, const std::function<void(int)>& task, bool parallel) {
    const int threads = parallel ? std::min(count, workerThreads()) : 1;
    if (threads <= 1) {
        for (int i = 0; i < count; ++i) task(i);
        return;
    }
    std::atomic<int> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
        for (int i = next++; i < count; i = next++) {
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    for (int t = 1; t < threads; ++t) {
        try {
            helpers.emplace_back(work);
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the ones running (and this one) do the rest
        }
    }
    work();
    for (auto& h : helpers) h.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace headscope
