#include "cli/TrainBench.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>

#include "Parallel.h"
#include "Strings.h"
#include "train/Trainer.h"

namespace headscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One core's sgemm rate (GFLOP/s, a multiply-add = 2) on the step's largest product shape.
double gemmRate(int rows, int d) {
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(rows, d), w = Eigen::MatrixXf::Random(d, 3 * d);
    Eigen::MatrixXf y(rows, 3 * d);
    const double flops = 2.0 * rows * d * 3.0 * d;
    const int repeats = std::max(1, int(1e8 / flops));
    std::vector<double> rates;
    for (int sample = 0; sample < 7; ++sample) {
        const auto t0 = Clock::now();
        for (int r = 0; r < repeats; ++r) y.noalias() = x * w;
        rates.push_back(flops * repeats / (msSince(t0) * 1e6));
    }
    volatile float sink = y(0, 0);
    (void)sink;
    return median(rates);
}

}  // namespace

TrainBenchFigures measureTraining(int runs, int seeds, int max_steps) {
    TrainBenchFigures f;
    const train::TrainConfig defaults;
    f.batch = defaults.batch, f.context = defaults.context, f.runs = runs, f.max_steps = max_steps;
    f.threads = std::min(2, workerThreads());  // the trainer's two shards
    f.step_multiply_adds = defaults.stepMultiplyAdds();
    {
        train::TrainConfig c = defaults;
        c.eval_every = 1'000'000;  // the step alone
        train::Trainer trainer(c);
        f.parameters = trainer.layout().size();
        for (int i = 0; i < 5; ++i) trainer.step();  // warm caches and the thread pool
        std::vector<double> times;
        for (int i = 0; i < runs; ++i) {
            const auto t0 = Clock::now();
            trainer.step();
            times.push_back(msSince(t0));
        }
        f.step_ms = median(times);
    }
    f.gemm_gflops = gemmRate(defaults.batch * defaults.context, defaults.d_model);
    f.floor_ms = 2.0 * f.step_multiply_adds / (f.gemm_gflops * 1e9 * f.threads) * 1e3;

    std::vector<double> reached;
    for (int seed = 1; seed <= seeds; ++seed) {
        train::TrainConfig c = defaults;
        c.seed = std::uint64_t(seed);
        const auto t0 = Clock::now();
        train::Trainer trainer(c);
        double seconds = -1;
        long long step = -1;
        while (trainer.steps() < max_steps && seconds < 0) {
            const std::size_t evaluations = trainer.evaluations().size();
            trainer.step();
            if (trainer.evaluations().size() > evaluations && trainer.evaluations().back().repeated_accuracy >= 0.9)
                seconds = msSince(t0) / 1e3, step = trainer.steps();
        }
        f.seconds_to_90.push_back(seconds);
        f.steps_to_90.push_back(step);
        if (seconds >= 0) reached.push_back(seconds);
    }
    if (!reached.empty()) f.median_seconds_to_90 = median(reached);
    return f;
}

}  // namespace headscope::cli
