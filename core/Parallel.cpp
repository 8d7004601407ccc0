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

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

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

thread_local bool t_is_helper = false;  // this thread is one of the pool's

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
class Pool {
public:
    static Pool& instance() {
        static Pool* const pool = new Pool(workerThreads() - 1);
        return *pool;
    }

    int helpers() const { return static_cast<int>(threads_.size()); }

    void post(const std::shared_ptr<Loop>& loop) {
        keepHelpersOffCallersCore();
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
    explicit Pool(int wanted) {
        for (int t = 0; t < wanted; ++t) {
            try {
                std::thread helper([this] { serve(); });
                threads_.push_back(helper.native_handle());
                helper.detach();
            } catch (const std::system_error&) {
                break;  // no more threads to be had: the callers do the rest themselves
            }
        }
    }

    void serve() {
        t_is_helper = true;
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

    // A woken thread is queued on the core it last ran on, which may be the caller's busy one;
    // the idle core takes it over only at the scheduler's next tick, 3-4 ms later (measured
    // here). So the helpers may run anywhere but on the caller's core: one system call per
    // change of core, none while the caller stays where it is.
    void keepHelpersOffCallersCore() {
#if defined(__linux__)
        if (t_is_helper) return;  // a nested loop: its caller is one of the helpers steered already
        const int cpu = sched_getcpu();
        if (cpu < 0 || last_caller_cpu_.exchange(cpu) == cpu) return;
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
        CPU_CLR(cpu, &allowed);
        if (CPU_COUNT(&allowed) == 0) return;  // a single core to run on: nothing to steer
        for (pthread_t helper : threads_) pthread_setaffinity_np(helper, sizeof allowed, &allowed);
#endif
    }

    std::vector<std::thread::native_handle_type> threads_;  // written by the constructor only
    std::atomic<int> last_caller_cpu_{-1};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<Loop>> loops_;
};

}  // namespace

void parallelFor(int count, const std::function<void(int)>& task, bool parallel) {
    const int threads = parallel ? std::min(count, workerThreads()) : 1;
    Pool* const pool = threads > 1 ? &Pool::instance() : nullptr;
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
