#pragma once
// Eigenvalues, without eigenvectors, of a real symmetric matrix: Householder reduction to a
// tridiagonal T (Eigen's Tridiagonalization), then T's eigenvalues by the implicit QL/QR
// iteration in its root-free form (Pal, Walker and Kahan; Parlett, The Symmetric Eigenvalue
// Problem, section 8.15; the method of LAPACK's dsterf). The iteration works on the squares
// e_i^2 of T's off-diagonal and needs no square root and one division fewer per rotation than
// the Givens rotations of Eigen's SelfAdjointEigenSolver: the spectra's cores (Spectrum.cpp)
// solve a (d_k, d_k) problem per head and product, and this is the larger half of its cost.
// Accuracy: each eigenvalue within a small multiple of eps ||T|| (a backward-stable method,
// as Eigen's); tests/core/test_symmetric_eigenvalues.cpp checks both against closed forms and
// against Eigen's solver.

#include <Eigen/Core>
#include <optional>

namespace headscope {

// T (n, n) with `diagonal` (n) and `off_diagonal` (n - 1) -> its n eigenvalues, ascending.
// Empty when an entry is not finite or the iteration did not converge in 30 n sweeps (as
// dsterf's limit; not seen on any input in the tests).
std::optional<Eigen::VectorXd> tridiagonalEigenvalues(Eigen::VectorXd diagonal, Eigen::VectorXd off_diagonal);

// S (n, n) symmetric, read from its lower triangle and diagonal -> its n eigenvalues, ascending;
// empty as tridiagonalEigenvalues.
std::optional<Eigen::VectorXd> symmetricEigenvalues(const Eigen::MatrixXd& lower);

}  // namespace headscope
