#pragma once
// An SVD independent of core's (Eigen's two-sided Jacobi SVD, where core uses its own thin factors
// and BDCSVD), for tests to check singular values against. Compiled once (ReferenceSvd.cpp): the
// SVD's templates took most of each test file's compile time where every file instantiated them.

#include <Eigen/Core>

namespace headscope::test {

struct ReferenceSvd {
    Eigen::VectorXd singular_values;  // descending, min(rows, cols) of them
    Eigen::MatrixXd u, v;             // thin factors: m = u diag(singular_values) v^T
};

// Descending singular values of m.
Eigen::VectorXd referenceSingularValues(const Eigen::MatrixXd& m);
// The same with the thin U and V.
ReferenceSvd referenceSvd(const Eigen::MatrixXd& m);

}  // namespace headscope::test
