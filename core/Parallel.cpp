#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
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

namespace {

// What the calling thread and the helpers share. A helper may take the loop after the call
// returned (the scheduler gave its core to another program meanwhile): it then finds no index
// left and never touches `task`, so the caller waits for the tasks, never for a helper.
struct Loop {
    Loop(int count, int helpers, const std::function<void(int)>* task) : count(count), helpers(helpers), task(task) {}
    const int count;
    const int helpers;                     // at most this many helpers join the caller
    const std::function<void(int)>* task;  // valid until every index is done
    std::atomic<int> next{0};
    int joined = 0;  // helpers that took the loop, under the pool's mutex
    int done = 0;    // under mutex
    std::exception_ptr failure;
    std::mutex mutex;
    std::condition_variable all_done;

    bool exhausted() const { return next.load(std::memory_order_relaxed) >= count; }

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

// workerThreads() - 1 helper threads for the life of the process, asleep until a loop is
// posted. Never destroyed: its threads may still wait while static objects are torn down.
class WorkerPool {
public:
    static WorkerPool& instance() {
        static WorkerPool* const pool = new WorkerPool(workerThreads() - 1);
        return *pool;
    }

    int helpers() const { return threads_; }

    void post(const std::shared_ptr<Loop>& loop) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            loops_.push_back(loop);
        }
        if (loop->helpers >= helpers())
            wake_.notify_all();
        else
            for (int h = 0; h < loop->helpers; ++h) wake_.notify_one();
    }

    // The caller's own work is over: no helper needs to look at the loop any more.
    void retire(const std::shared_ptr<Loop>& loop) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (const auto it = std::find(loops_.begin(), loops_.end(), loop); it != loops_.end()) loops_.erase(it);
    }

private:
    explicit WorkerPool(int wanted) {
        for (int t = 0; t < wanted; ++t) {
            try {
                std::thread([this] { serve(); }).detach();
                ++threads_;
            } catch (const std::system_error&) {
                break;  // no more threads to be had: the callers do the rest themselves
            }
        }
    }

    void serve() {
        for (;;) {
            std::shared_ptr<Loop> loop;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return (loop = staffable()) != nullptr; });
                ++loop->joined;
            }
            loop->work();
        }
    }

    // The oldest posted loop with indices left and room for one more helper (under mutex_).
    std::shared_ptr<Loop> staffable() const {
        for (const auto& loop : loops_)
            if (!loop->exhausted() && loop->joined < loop->helpers) return loop;
        return nullptr;
    }

    int threads_ = 0;  // helpers started, written by the constructor only
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<Loop>> loops_;
};

}  // namespace

void parallelFor(int count, const std::function<void(int)>& task, bool parallel) {
    const int threads = parallel ? std::min(count, workerThreads()) : 1;
    WorkerPool* const pool = threads > 1 ? &WorkerPool::instance() : nullptr;
    const int helpers = pool ? std::min(threads - 1, pool->helpers()) : 0;
    if (helpers == 0) {
        for (int i = 0; i < count; ++i) task(i);
        return;
    }
    const auto loop = std::make_shared<Loop>(count, helpers, &task);
    pool->post(loop);
    loop->work();
    pool->retire(loop);
    std::unique_lock<std::mutex> lock(loop->mutex);
    loop->all_done.wait(lock, [&] { return loop->done == count; });
    if (loop->failure) std::rethrow_exception(loop->failure);
}

}  // namespace headscope
