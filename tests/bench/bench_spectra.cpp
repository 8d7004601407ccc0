// Benchmark: the spectra's small eigenproblems and every head's spectra (core/Spectrum.h).
// Prints medians over --runs samples:
//   eigen      Eigen's SelfAdjointEigenSolver, values only, of one (n, n) C C^T
//   tridiag    Eigen's Tridiagonalization of it alone (the first half of both methods)
//   ours       symmetricEigenvalues (core/SymmetricEigenvalues.h: tridiagonalisation + root-free QL)
//   spectra    headSpectra at BERT-base (768, 12 heads) and the large geometry (1600, 25 heads),
//              on the threads parallelFor uses (HEADSCOPE_THREADS=1 for one)
// and the largest difference between the two methods' eigenvalues, relative to the largest.
// Usage: bench_spectra [--runs N] [--n N]; pin it (taskset -c 1) for steady figures.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "Random.h"
#include "Spectrum.h"
#include "SymmetricEigenvalues.h"
#include "Weights.h"

using namespace headscope;

namespace {

template <typename F>
double medianUs(int runs, F&& f) {
    std::vector<double> us;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 201, n = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--runs")) runs = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--n")) n = std::max(1, std::atoi(argv[i + 1]));
    }
    // C (n, n) standard normal; S = C C^T (n, n), as coreSingularValues forms it.
    Rng rng(7);
    Eigen::MatrixXd c(n, n);
    for (Eigen::Index i = 0; i < c.size(); ++i) c.data()[i] = rng.normal();
    const Eigen::MatrixXd s = c * c.transpose();
    volatile double sink = 0;
    const double eigen_us = medianUs(runs, [&] {
        sink = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(s, Eigen::EigenvaluesOnly).eigenvalues()(0);
    });
    const double tridiag_us = medianUs(runs, [&] { sink = Eigen::Tridiagonalization<Eigen::MatrixXd>(s).diagonal()(0); });
    const double ours_us = medianUs(runs, [&] { sink = (*symmetricEigenvalues(s))(0); });
    const Eigen::VectorXd reference = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(s, Eigen::EigenvaluesOnly).eigenvalues();
    const double difference = (*symmetricEigenvalues(s) - reference).cwiseAbs().maxCoeff() / reference(n - 1);
    std::printf("eigenvalues of one (%d, %d) C C^T, median of %d: eigen %.1f us, tridiag %.1f us, ours %.1f us "
                "(the iteration: eigen %.1f, ours %.1f us); max difference %.2g of the largest\n",
                n, n, runs, eigen_us, tridiag_us, ours_us, eigen_us - tridiag_us, ours_us - tridiag_us, difference);
    for (const auto& [d_model, heads] : {std::pair{768, 12}, std::pair{1600, 25}}) {
        Config config;
        config.d_model = d_model;
        config.heads = heads;
        const Weights w = makeWeights(config);
        const double ms = medianUs(std::max(3, runs / 10), [&] { sink = headSpectra(w)[0].qk.singular_values(0); }) / 1e3;
        std::printf("headSpectra d_model %d, %d heads: %.2f ms\n", d_model, heads, ms);
    }
    return 0;
}
