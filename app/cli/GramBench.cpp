#include "cli/GramBench.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "Gram.h"
#include "Strings.h"

namespace headscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

// How many calls of `work` take about 20 ms (after a warm-up call), at least one.
template <typename Work>
int repeatsFor(Work& work) {
    work();
    const auto t0 = Clock::now();
    work();
    const double once = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return std::clamp(int(20.0 / std::max(once, 1e-3)), 1, 1000);
}

// Milliseconds of one call of `work`, averaged over `repeats` calls.
template <typename Work>
double sampleMs(Work& work, int repeats) {
    const auto start = Clock::now();
    for (int r = 0; r < repeats; ++r) work();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / repeats;
}

// Median milliseconds of `a` and of `b`, one sample of each in turn, `runs` times: on a shared
// machine whose speed drifts, both meet the same minutes, so their ratio is not the drift's.
template <typename A, typename B>
std::pair<double, double> interleavedMediansMs(int runs, A&& a, B&& b) {
    const int repeats_a = repeatsFor(a), repeats_b = repeatsFor(b);
    std::vector<double> samples_a, samples_b;
    for (int run = 0; run < runs; ++run) {
        samples_a.push_back(sampleMs(a, repeats_a));
        samples_b.push_back(sampleMs(b, repeats_b));
    }
    return {median(samples_a), median(samples_b)};
}

}  // namespace

GramFigures measureGram(int d_model, int heads, int runs) {
    const int d_k = d_model / heads;
    GramFigures f{d_model, d_k, heads};
    const Eigen::MatrixXf W_Q = Eigen::MatrixXf::Random(d_model, heads * d_k);  // (d, h d_k)
    const Eigen::MatrixXd factor = W_Q.leftCols(d_k).cast<double>();             // (d, d_k)
    Eigen::MatrixXd product(d_k, d_k);
    volatile double sink = 0;
    const auto [gram_ms, full_ms] = interleavedMediansMs(
        runs,
        [&] {
            for (int head = 0; head < heads; ++head)
                sink = sink + gramLower(strided(W_Q.middleCols(head * d_k, d_k)))(0, 0);
        },
        [&] {
            for (int head = 0; head < heads; ++head) {
                product.noalias() = factor.transpose() * factor;  // (d_k, d_k): every entry, twice the Gram's
                sink = sink + product(0, 0);
            }
        });
    f.gram_ms = gram_ms;
    f.gemm_ms = full_ms * (d_k + 1) / (2.0 * d_k);
    return f;
}

std::string buildInstructionSet() {
#if defined(__AVX512F__)
    return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2 with FMA";
#elif defined(__AVX__)
    return "AVX";
#elif defined(__SSE2__)
    return "SSE2";
#else
    return "other";
#endif
}

std::string cpuInstructionSet() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "AVX-512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "AVX2 with FMA";
    if (__builtin_cpu_supports("avx")) return "AVX";
    return "SSE2";
#else
    return "other";
#endif
}

}  // namespace headscope::cli
