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
// The same maps pooled again to half as many cells a side (a panel of a grid of heads): what
// pooling the maps to it gives, since the blocks nest.
constexpr int kCoarseCells = kPooledCells / 2;
struct PooledMaps {
    std::vector<Eigen::MatrixXf> weights, logits;                // per head, (min(n_q, cells), min(n_kv, cells))
    std::vector<Eigen::MatrixXf> coarse_weights, coarse_logits;  // per head, (min(n_q, cells / 2), min(n_kv, cells / 2))
};
// A head whose logits were not kept (a long input's layer) has them from its pooled_logits when
// `cells` is kPooledCells, else computed again with `options`, the ones its results were computed
// with (headLogits).
PooledMaps poolMaps(const Results& results, const AttentionOptions& options, int cells = kPooledCells);

// Each head's largest weight and largest |logit| over its unmasked, finite cells (0 where none is
// left): what the colour bars run to. Computed with the window's analysis on its worker, so that no
// picture scans the maps on the GUI thread (32 heads of 2,048 tokens: a quarter of a second).
// max |m(r, c)| over the finite cells that `allowed` (m's shape, or empty: every cell) leaves; 0 for none.
double largestMagnitude(const Eigen::Ref<const Eigen::MatrixXf>& m, const MaskMatrix& allowed = {});

struct MapExtremes {
    std::vector<double> weights, logits;  // per head
};
// From `pooled` where given (pooling keeps every map's extremes), else from the maps under
// results.allowed; logits that were not kept are computed again with `options` (headLogits).
MapExtremes mapExtremes(const Results& results, const PooledMaps* pooled, const AttentionOptions& options);

}  // namespace headscope
