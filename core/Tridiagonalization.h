#pragma once
// Householder reduction of a symmetric matrix to tridiagonal form, values only (the reflectors
// are not kept): Q^T A Q = T with Q orthogonal, so T has A's eigenvalues. Backward stable.
// Made for the spectra's many 64 x 64 cores: it works on a full symmetric copy in a buffer
// padded to whole packets, reduces from the last column so the active block stays at the
// top-left, and applies each step's rank-2 update in the same pass that forms the next step's
// matrix-vector product. 2-3x faster than Eigen's Tridiagonalization at n = 64 on this machine.

#include <Eigen/Core>

namespace headscope {

// Symmetric m (n, n), read from its lower triangle (and diagonal) -> the diagonal (n) and the
// off-diagonal (n - 1) of a tridiagonal orthogonally similar to it. m must be finite.
void tridiagonalize(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& diagonal,
                    Eigen::VectorXd& off_diagonal);

}  // namespace headscope
