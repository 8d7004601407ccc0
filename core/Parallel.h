#pragma once
// A minimal fork-join loop over independent tasks on the machine's cores.
// Plain std::threads, started per call (~20 microseconds against milliseconds of work):
// unlike OpenMP's spinning barriers it degrades gracefully when the GUI thread or another
// program shares the two cores. The caller waits for the tasks only, never for a helper
// thread to be scheduled: a helper that starts late finds nothing left and ends.

#include <functional>

namespace headscope {

// Number of threads parallelFor uses: the hardware's (or HEADSCOPE_THREADS), at least 1.
int workerThreads();

// Runs task(0) ... task(count - 1), each exactly once, on up to workerThreads() threads
// (the calling thread included), handing out indices in order. Returns when all are done.
// The first exception a task throws is rethrown here. With parallel false (work too small
// to be worth a thread) the tasks run in order on the calling thread.
void parallelFor(int count, const std::function<void(int)>& task, bool parallel = true);

}  // namespace headscope
