#pragma once
// Singular values only, for the small (r, r) cores of thin-factor products: Householder
// bidiagonalisation followed by implicit-shift QR sweeps on the bidiagonal
// (Golub-Kahan-Reinsch, as in LAPACK's dgesvd without vectors). O(m n^2) with a small
// constant; backward stable: absolute error O(eps * sigma_max), like every dense SVD.
// Eigen's BDCSVD gives the same values but costs several times more without U and V.

#include <Eigen/Core>

namespace headscope {

// Descending singular values of m (min(rows, cols) of them).
Eigen::VectorXd singularValues(const Eigen::Ref<const Eigen::MatrixXd>& m);

}  // namespace headscope
