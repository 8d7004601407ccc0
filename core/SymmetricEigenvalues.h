#pragma once
// Eigenvalues only of a symmetric matrix: Householder tridiagonalisation, then Reinsch's
// rational QL iteration on the tridiagonal (root-free: it works on the squared off-diagonal, so
// a step costs one division and no square root or rotation). Backward stable: every eigenvalue
// is off by at most about n eps ||A||_2. Several times faster than a bidiagonal SVD of the
// same size, which is why products' singular values go through it where that is accurate.

#include <Eigen/Core>

namespace headscope {

// diagonal (n) and off_diagonal (n - 1) of a symmetric tridiagonal -> its eigenvalues,
// ascending, in place of the diagonal. False (diagonal unusable) if an eigenvalue took more
// than 30 iterations, which the shifts make practically impossible.
bool tridiagonalEigenvalues(Eigen::VectorXd& diagonal, const Eigen::Ref<const Eigen::VectorXd>& off_diagonal);

// Symmetric m (n, n), read from its lower triangle -> its n eigenvalues ascending, in
// `ascending`. False if the iteration did not converge.
bool symmetricEigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& ascending);

}  // namespace headscope
