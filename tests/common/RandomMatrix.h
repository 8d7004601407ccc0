#pragma once
// Seeded standard-normal test matrices, drawn row by row from HeadScope's own Rng (the same
// numbers on every machine).

#include <Eigen/Core>

#include "Random.h"

namespace headscope::test {

inline Eigen::MatrixXd randomNormalMatrix(int rows, int cols, Rng& rng) {
    Eigen::MatrixXd m(rows, cols);  // (rows, cols)
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = rng.normal();
    return m;
}

}  // namespace headscope::test
