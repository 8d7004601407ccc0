#pragma once
// Eigenvalues only of a symmetric matrix: Householder tridiagonalisation, then Reinsch's
// rational QL iteration on the tridiagonal (root-free: it works on the squared off-diagonal, so
// a step costs one division and no square root or rotation). Backward stable: every eigenvalue
// is off by at most about n eps ||A||_2. Several times faster than a bidiagonal SVD of the
// same size, which is why products' singular values go through it where that is accurate.

#include <Eigen/Core>
#include <array>

namespace headscope {

// diagonal (n) and off_diagonal (n - 1) of a symmetric tridiagonal -> its eigenvalues,
// ascending, in place of the diagonal. False (diagonal unusable) if an eigenvalue took more
// than 30 iterations, which the shifts make practically impossible.
bool tridiagonalEigenvalues(Eigen::VectorXd& diagonal, const Eigen::Ref<const Eigen::VectorXd>& off_diagonal);

// Symmetric m (n, n), read from its lower triangle -> its n eigenvalues ascending, in
// `ascending`. False if the iteration did not converge.
bool symmetricEigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& ascending);

// Two problems on one core, their QL sweeps interleaved step by step. A sweep is a chain of
// dependent divisions; two independent chains run side by side in about two thirds of the
// time of one after the other. The values are those of two separate calls, bit for bit;
// the flags are what each call would return.
std::array<bool, 2> tridiagonalEigenvaluesTogether(Eigen::VectorXd& diagonal_a,
                                                   const Eigen::Ref<const Eigen::VectorXd>& off_diagonal_a,
                                                   Eigen::VectorXd& diagonal_b,
                                                   const Eigen::Ref<const Eigen::VectorXd>& off_diagonal_b);
std::array<bool, 2> symmetricEigenvaluesTogether(const Eigen::Ref<const Eigen::MatrixXd>& m_a, Eigen::VectorXd& ascending_a,
                                                 const Eigen::Ref<const Eigen::MatrixXd>& m_b, Eigen::VectorXd& ascending_b);

}  // namespace headscope
