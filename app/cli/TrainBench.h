#pragma once
// The training figures of `headscope-cli bench` (issue 23): a training step of the default model
// (forward + backward + Adam) against its multiply-adds at the sgemm rate measured in the same
// run, and the seconds to 90% accuracy on the repeated half, median over seeds.

#include <vector>

namespace headscope::cli {

struct TrainBenchFigures {
    long long parameters = 0;
    int batch = 0, context = 0, runs = 0, threads = 0;
    double step_ms = 0;             // median wall time of one step
    double step_multiply_adds = 0;  // TrainConfig::stepMultiplyAdds
    double gemm_gflops = 0;         // one core, a (batch * context, d) x (d, 3d) product in cache
    double floor_ms = 0;            // the step's multiply-adds at that rate on `threads` cores
    std::vector<double> seconds_to_90;  // per seed; -1 where 90% was not reached within max_steps
    std::vector<long long> steps_to_90;
    int max_steps = 0;
    double median_seconds_to_90 = -1;   // over the seeds that reached it; -1 if none did
};

TrainBenchFigures measureTraining(int runs, int seeds, int max_steps);

}  // namespace headscope::cli
