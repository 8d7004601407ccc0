#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

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

namespace {

// What the calling thread and its helpers share. A helper may start after the call returned
// (the scheduler gave its core to another program meanwhile): it then finds no index left and
// never touches `task`, so the caller waits for the tasks, never for a helper to start.
struct Loop {
    explicit Loop(int count, const std::function<void(int)>* task) : count(count), task(task) {}
    const int count;
    const std::function<void(int)>* task;  // valid until every index is done
    std::atomic<int> next{0};
    int done = 0;  // under mutex
    std::exception_ptr failure;
    std::mutex mutex;
    std::condition_variable all_done;

    void work() {
        for (int i = next++; i < count; i = next++) {
            std::exception_ptr error;
            try {
                (*task)(i);
            } catch (...) {
                error = std::current_exception();
            }
            const std::lock_guard<std::mutex> lock(mutex);
            if (error && !failure) failure = error;
            if (++done == count) all_done.notify_all();
        }
    }
};

}  // namespace

void parallelFor(int count, const std::function<void(int)>& task, bool parallel) {
    const int threads = parallel ? std::min(count, workerThreads()) : 1;
    if (threads <= 1) {
        for (int i = 0; i < count; ++i) task(i);
        return;
    }
    const auto loop = std::make_shared<Loop>(count, &task);
    for (int t = 1; t < threads; ++t) {
        try {
            std::thread([loop] { loop->work(); }).detach();
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the ones running (and this one) do the rest
        }
    }
    loop->work();
    std::unique_lock<std::mutex> lock(loop->mutex);
    loop->all_done.wait(lock, [&] { return loop->done == count; });
    if (loop->failure) std::rethrow_exception(loop->failure);
}

}  // namespace headscope
