#include "Downsample.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Parallel.h"

namespace headscope {

Eigen::MatrixXf downsample(const Eigen::Ref<const Eigen::MatrixXf>& m, int out_rows, int out_cols, Pool pool,
                           const Eigen::Ref<const MaskMatrix>& allowed) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    out_rows = std::clamp(out_rows, std::min(1, rows), rows);
    out_cols = std::clamp(out_cols, std::min(1, cols), cols);
    const bool masked = allowed.rows() == m.rows() && allowed.cols() == m.cols();
    constexpr float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    Eigen::MatrixXf out(out_rows, out_cols);  // (out_rows, out_cols)
    Eigen::ArrayXf high(out_rows), low(out_rows);  // one output column's largest and smallest so far
    for (int oc = 0; oc < out_cols; ++oc) {
        high.setConstant(-inf);
        low.setConstant(inf);
        // Column-major: each source column once, its row blocks folded into this output column's cells.
        // Masked and non-finite cells are left out: -inf for the largest, +inf for the smallest.
        for (int c = poolFirst(oc, cols, out_cols); c < poolFirst(oc + 1, cols, out_cols); ++c) {
            const float* column = m.col(c).data();                             // (rows)
            const bool* keep = masked ? allowed.col(c).data() : nullptr;       // (rows)
            for (int orow = 0; orow < out_rows; ++orow) {
                float hi = high(orow), lo = low(orow);
                for (int r = poolFirst(orow, rows, out_rows); r < poolFirst(orow + 1, rows, out_rows); ++r) {
                    const float v = column[r];
                    const bool kept = (!keep || keep[r]) && std::isfinite(v);
                    hi = std::max(hi, kept ? v : -inf);
                    lo = std::min(lo, kept ? v : inf);
                }
                high(orow) = hi, low(orow) = lo;
            }
        }
        for (int orow = 0; orow < out_rows; ++orow) {
            const bool empty = high(orow) == -inf;
            float v = high(orow);
            if (pool == Pool::Extreme && -low(orow) > std::abs(high(orow))) v = low(orow);  // ties: the positive
            out(orow, oc) = empty ? nan : v;
        }
    }
    return out;
}

PooledMaps poolMaps(const Results& results, const AttentionOptions& options, int cells) {
    const int heads = static_cast<int>(results.heads.size());
    PooledMaps p;
    for (auto* maps : {&p.weights, &p.logits, &p.coarse_weights, &p.coarse_logits}) maps->resize(std::size_t(heads));
    parallelFor(2 * heads, [&](int task) {  // each head's weights, then each head's logits
        const std::size_t h = std::size_t(task % heads);
        if (task < heads) p.weights[h] = downsample(results.heads[h].weights, cells, cells, Pool::Max, results.allowed);
        else if (results.heads[h].logits.size())
            p.logits[h] = downsample(results.heads[h].logits, cells, cells, Pool::Extreme, results.allowed);
        else if (results.heads[h].pooled_logits.size() && cells == kPooledCells)  // pooled as they went
            p.logits[h] = results.heads[h].pooled_logits;
        else  // a long input's layer keeps its weights only
            p.logits[h] =
                downsample(headLogits(options, results, int(h)), cells, cells, Pool::Extreme, results.allowed);
        if (task < heads) p.coarse_weights[h] = downsample(p.weights[h], cells / 2, cells / 2, Pool::Max);
        else p.coarse_logits[h] = downsample(p.logits[h], cells / 2, cells / 2, Pool::Extreme);  // masked: NaN, left out
    });
    return p;
}

double largestMagnitude(const Eigen::Ref<const Eigen::MatrixXf>& m, const MaskMatrix& allowed) {
    const bool have_mask = allowed.rows() == m.rows() && allowed.cols() == m.cols();
    double extreme = 0;
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        for (Eigen::Index r = 0; r < m.rows(); ++r) {
            if (have_mask && !allowed(r, c)) continue;
            const double v = m(r, c);
            if (std::isfinite(v)) extreme = std::max(extreme, std::abs(v));
        }
    return extreme;
}

MapExtremes mapExtremes(const Results& results, const PooledMaps* pooled, const AttentionOptions& options) {
    const int heads = static_cast<int>(results.heads.size());
    MapExtremes e{std::vector<double>(std::size_t(heads)), std::vector<double>(std::size_t(heads))};
    const MaskMatrix none;
    parallelFor(2 * heads, [&](int task) {  // each head's weights, then each head's logits
        const std::size_t h = std::size_t(task % heads);
        const bool logits = task >= heads;
        double& out = logits ? e.logits[h] : e.weights[h];
        if (pooled)  // masked cells are NaN there: left out
            out = largestMagnitude(logits ? pooled->logits.at(h) : pooled->weights.at(h), none);
        else if (!logits)
            out = largestMagnitude(results.heads[h].weights, results.allowed);
        else if (results.heads[h].logits.size())
            out = largestMagnitude(results.heads[h].logits, results.allowed);
        else
            out = largestMagnitude(headLogits(options, results, int(h)), results.allowed);
    }, double(heads) * double(results.allowed.size()) > 1e6);
    return e;
}

}  // namespace headscope
