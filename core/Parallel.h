#pragma once
// A minimal fork-join loop over independent tasks on the machine's cores: a plain pool.
// Helper threads are started once and then wait for loops (waking a waiting thread is much
// cheaper than starting one). Unlike OpenMP's spinning barriers, idle helpers sleep, so the
// loop degrades gracefully when the GUI thread or another program shares the cores. The caller
// works on its own loop and waits for the tasks only, never for a helper to be scheduled: a
// helper that comes late finds nothing left. The pool leaves the threads' CPU affinity and
// every other process-wide setting as it finds them (core may be embedded in any program).

#include <functional>

namespace headscope {

// Number of threads parallelFor uses: the hardware's (or HEADSCOPE_THREADS), at least 1.
int workerThreads();

// Runs task(0) ... task(count - 1), each exactly once, on up to workerThreads() threads
// (the calling thread included), handing out indices in order. Returns when all are done.
// The first exception a task throws is rethrown here. With parallel false (work too small
// to be worth a thread) the tasks run in order on the calling thread. Loops may be nested
// and may run from several threads at once.
void parallelFor(int count, const std::function<void(int)>& task, bool parallel = true);

}  // namespace headscope
