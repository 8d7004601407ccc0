#include "Downsample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headscope {

Eigen::MatrixXf downsample(const Eigen::Ref<const Eigen::MatrixXf>& m, int out_rows, int out_cols, Pool pool,
                           const Eigen::Ref<const MaskMatrix>& allowed) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    out_rows = std::clamp(out_rows, std::min(1, rows), rows);
    out_cols = std::clamp(out_cols, std::min(1, cols), cols);
    const bool masked = allowed.rows() == m.rows() && allowed.cols() == m.cols();
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    Eigen::MatrixXf out = Eigen::MatrixXf::Constant(out_rows, out_cols, nan);  // (out_rows, out_cols)
    // Column-major: walk each source column once, folding it into its output column's cells.
    for (int oc = 0; oc < out_cols; ++oc) {
        for (int c = poolFirst(oc, cols, out_cols); c < poolFirst(oc + 1, cols, out_cols); ++c) {
            for (int orow = 0; orow < out_rows; ++orow) {
                float& cell = out(orow, oc);
                for (int r = poolFirst(orow, rows, out_rows); r < poolFirst(orow + 1, rows, out_rows); ++r) {
                    const float v = m(r, c);
                    if ((masked && !allowed(r, c)) || !std::isfinite(v)) continue;
                    const bool better = pool == Pool::Max ? !(cell >= v) : !(std::abs(cell) >= std::abs(v));  // NaN: first value
                    if (better) cell = v;
                }
            }
        }
    }
    return out;
}

}  // namespace headscope
