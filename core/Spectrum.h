#pragma once
// Singular values of a product A B^T of thin factors, A (m, r) and B (p, r), without
// forming the (m, p) product: A = Q_a R_a, B = Q_b R_b (thin QR), so
// A B^T = Q_a (R_a R_b^T) Q_b^T and the singular values are those of the (r, r) core C.
// Well-conditioned factors take R from Cholesky-QR and sv(C) from the eigenvalues of C C^T;
// others Householder QR and an SVD of C (Spectrum.cpp gives the error bounds). Every
// factorisation is Eigen's own (LLT, HouseholderQR, Tridiagonalization, BDCSVD) except the
// Gram A^T A, which may come from a kernel of ours (Gram.h), and the eigenvalues of C C^T's
// tridiagonal form (SymmetricEigenvalues.h: the root-free QL iteration). Cost O((m + p) r^2 + r^3) instead of
// O(m p min(m, p)). All in double precision.

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "Weights.h"

namespace headscope {

struct Spectrum {
    Eigen::VectorXd singular_values;  // descending, min(m, p, r) of them
    double tolerance = 0;             // values <= tolerance count as zero
    int rank = 0;
};

// tolerance: rank_rtol > 0 ? rank_rtol * sigma_max : sigma_max * max(rows, cols) * eps(double)
// (NumPy's matrix_rank default); rows, cols are the shape of the (virtual) product.
int numericalRank(const Eigen::Ref<const Eigen::VectorXd>& descending_sv, Eigen::Index rows,
                  Eigen::Index cols, double rank_rtol, double* tolerance_out = nullptr);

// An upper bound, from above, on the 1-norm condition number ||R||_1 ||R^{-1}||_1 of an upper
// triangular R (n, n) in O(n^2) instead of inverting R (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., Thm 8.12, via R's comparison matrix). Exact for a diagonal R,
// about twice the true value for the R of a random (768, 64) factor, loose when off-diagonal
// entries are large; infinite with a zero on the diagonal.
double triangularConditionBound(const Eigen::Ref<const Eigen::MatrixXd>& r);

// A (m, r), B (p, r) -> singular values of A B^T (m, p).
Spectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                         const Eigen::Ref<const Eigen::MatrixXd>& b, double rank_rtol = 0);

// Reference: full SVD of the explicitly formed product (the naive baseline).
Spectrum naiveProductSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                              const Eigen::Ref<const Eigen::MatrixXd>& b, double rank_rtol = 0);


// Largest rank a (rows, cols) product through `inner` dimensions can have: min(inner, rows, cols).
// W_QK,i: min(d_k, d_model); W_OV,i: min(d_v, d_model); logits Q_i K_i^T: min(d_k, n_q, n_kv).
inline int rankBound(Eigen::Index inner, Eigen::Index rows, Eigen::Index cols) {
    return static_cast<int>(std::min({inner, rows, cols}));
}

// Every singular value of a (rows, cols) matrix, min(rows, cols) of them, descending: the
// computed ones, then exact zeros for every index past the factor width (a product through
// r dimensions has min(rows, cols) - r singular values that are zero without computing them).
Eigen::VectorXd allSingularValues(const Spectrum& spectrum, Eigen::Index rows, Eigen::Index cols);

// How many of the min(rows, cols) singular values count as zero (at or below the tolerance).
inline int zeroCount(const Spectrum& spectrum, Eigen::Index rows, Eigen::Index cols) {
    return static_cast<int>(std::min(rows, cols)) - spectrum.rank;
}

struct HeadSpectra {
    Spectrum qk;  // W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), rank <= d_k
    Spectrum ov;  // W_OV,i = W_i^V W_i^O (d_model, d_model), rank <= d_v
};

// Every head's W_QK and W_OV spectrum; heads run in parallel on the machine's cores.
std::vector<HeadSpectra> headSpectra(const Weights& weights, double rank_rtol = 0);
// The naive baseline for the first `heads` heads (all when negative).
std::vector<HeadSpectra> naiveHeadSpectra(const Weights& weights, double rank_rtol = 0, int heads = -1);

}  // namespace headscope
