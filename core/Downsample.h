#pragma once
// A matrix larger than the pixels it is drawn in, shrunk so that nothing sharp is lost: each
// cell of the smaller grid is the largest value of its block (a single key holding a query's
// whole weight stays visible at any size), not a sample or a mean that would blur it away.

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "Engine.h"

namespace headscope {

enum class Pool {
    Max,      // the block's largest value (attention weights)
    Extreme,  // the block's value of largest magnitude, with its sign (logits)
};

// The cell a position falls in when `size` positions are split into `cells` blocks as evenly as
// integers allow: block i covers [first(i), first(i + 1)) with first(i) = i * size / cells.
inline int poolFirst(int i, int size, int cells) { return static_cast<int>(std::int64_t(i) * size / cells); }

// m (rows, cols) -> (out_rows, out_cols), 1 <= out_rows <= rows and 1 <= out_cols <= cols (clamped).
// Cells where `allowed` (same shape as m, or empty) is false and non-finite values are left out; a
// block with nothing left is NaN (drawn as masked).
Eigen::MatrixXf downsample(const Eigen::Ref<const Eigen::MatrixXf>& m, int out_rows, int out_cols, Pool pool,
                           const Eigen::Ref<const MaskMatrix>& allowed = MaskMatrix());

// A long input's maps as they are drawn: each head's weights (Pool::Max) and logits (Pool::Extreme),
// masked cells left out, at most kPooledCells a side. Pooling these again to a divisor of
// kPooledCells (256, 128, ...) gives exactly what pooling the maps to it gives, and their largest
// value is the map's, so a picture never needs the whole maps on the GUI thread.
constexpr int kPooledCells = 512;
struct PooledMaps {
    std::vector<Eigen::MatrixXf> weights, logits;  // per head, (min(n_q, cells), min(n_kv, cells))
};
// A head whose logits were not kept (a long input's layer) has them from its pooled_logits when
// `cells` is kPooledCells, else computed again with `options`, the ones its results were computed
// with (headLogits).
PooledMaps poolMaps(const Results& results, const AttentionOptions& options, int cells = kPooledCells);

}  // namespace headscope
