#pragma once
// The spectra's Gram (core/Gram.h) in `headscope-cli bench` (issue 35): every head's W_Q factor
// (d_model, d_k) through gramLower, against Eigen's double GEMM A^T A of the same factor scaled
// to the Gram's multiply-adds (its lower triangle: d_model d_k (d_k + 1) / 2), both on this thread, their
// samples taken in turn (a shared machine's drift meets both);
// and the instruction sets the build targets and the CPU has, which decide the kernel's speed.

#include <string>

namespace headscope::cli {

struct GramFigures {
    int rows = 0, cols = 0, factors = 0;  // factors of (rows, cols) per timed run
    double gram_ms = 0;                   // median, every factor's Gram
    double gemm_ms = 0;                   // median, the same multiply-adds by Eigen's GEMM
};

GramFigures measureGram(int d_model, int heads, int runs);

// "AVX-512", "AVX2 with FMA", "AVX", "SSE2" or "other": the widest the compiler was allowed to
// use, and the widest this CPU runs.
std::string buildInstructionSet();
std::string cpuInstructionSet();

}  // namespace headscope::cli
