// The row softmax of masked logits (Engine.h), the attention's largest cost after its products.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "Engine.h"

namespace headscope {

namespace {
constexpr float kMasked = -std::numeric_limits<float>::infinity();  // a masked logit
constexpr float kSmallestNormal = std::numeric_limits<float>::min();
constexpr Eigen::Index kPacket = 64 / sizeof(float);  // the widest packet, 64 bytes

// The first row of a column (n_q rows at `column`) on a 64-byte boundary.
Eigen::Index firstAligned(const float* column) {
    const auto misaligned = Eigen::Index(reinterpret_cast<std::uintptr_t>(column) % 64 / sizeof(float));
    return (kPacket - misaligned) % kPacket;
}

// Rows [begin, end) of a column computed for its visible rows [first, last): begin at most first,
// end at least last, each on a 64-byte boundary of the column (or its own end), so that Eigen's
// vectorised exp splits them into the same packets and scalar ends as the whole column, whose numbers
// it then gives bit for bit.
std::pair<Eigen::Index, Eigen::Index> computedRows(const float* column, Eigen::Index first, Eigen::Index last,
                                                   Eigen::Index n_q) {
    const Eigen::Index aligned = firstAligned(column);
    const Eigen::Index begin = first < aligned ? 0 : std::min(aligned + (first - aligned) / kPacket * kPacket, n_q);
    const Eigen::Index end =
        last <= aligned ? std::min(aligned, n_q) : std::min(aligned + (last - aligned + kPacket - 1) / kPacket * kPacket, n_q);
    return {begin, std::max(begin, end)};
}

// Key `key`'s visible rows [first, last) of n_q.
std::pair<Eigen::Index, Eigen::Index> visibleRows(VisibleRows visible, Eigen::Index key, Eigen::Index n_q) {
    const Eigen::Index first = visible.before < 0 ? 0 : std::clamp<Eigen::Index>(key - visible.before, 0, n_q);
    const Eigen::Index last = visible.after < 0 ? n_q : std::clamp<Eigen::Index>(key + visible.after + 1, first, n_q);
    return {first, last};
}
}  // namespace

VisibleRows VisibleRows::of(const AttentionOptions& options) {
    if (options.mask == MaskKind::Causal) return {0, options.window > 0 ? Eigen::Index(options.window) - 1 : -1};
    if (options.window > 0) return {options.window, options.window};
    return {};
}

Eigen::MatrixXf softmaxRows(const Eigen::Ref<const Eigen::MatrixXf>& logits, VisibleRows visible) {
    const Eigen::Index n_q = logits.rows(), n_kv = logits.cols();
    Eigen::VectorXf row_max;  // (n_q)
    if (!visible.all()) {     // each key's column over its visible rows
        row_max.setConstant(n_q, kMasked);
        for (Eigen::Index key = 0; key < n_kv; ++key) {
            const auto [first, last] = visibleRows(visible, key, n_q);
            row_max.segment(first, last - first) =
                row_max.segment(first, last - first).cwiseMax(logits.col(key).segment(first, last - first));
        }
    } else {
        row_max = logits.rowwise().maxCoeff();
    }
    // A fully masked row has max -inf; shifting by 0 instead keeps exp(-inf) = 0, not NaN.
    row_max = (row_max.array() == kMasked).select(0.0f, row_max);
    // Column-major storage: a whole column at a time, contiguous, so that Eigen's vectorised
    // exp applies (13x glibc's expf, within 3e-7 relative of the exact value where expf is within
    // 6e-8; the logits' own float rounding is larger). It clamps its argument at -88.7, so
    // whatever falls below the smallest normal float (exp(-87.3)) is set to 0 after it: masked
    // keys (-inf) get exactly 0.
    // Under a causal mask or a band, the rows a key cannot be seen from get exactly 0 without their exp.
    Eigen::MatrixXf weights(n_q, n_kv);  // (n_q, n_kv)
    Eigen::ArrayXf row_sum = Eigen::ArrayXf::Zero(n_q);
    const auto computed = [&](Eigen::Index key) {
        if (visible.all()) return std::pair<Eigen::Index, Eigen::Index>{0, n_q};
        const auto [first, last] = visibleRows(visible, key, n_q);
        return computedRows(weights.col(key).data(), first, last, n_q);
    };
    for (Eigen::Index key = 0; key < n_kv; ++key) {
        const auto [begin, end] = computed(key);
        const Eigen::Index rows = end - begin;
        weights.col(key).head(begin).setZero();
        weights.col(key).tail(n_q - end).setZero();
        auto column = weights.col(key).segment(begin, rows).array();  // (rows)
        column = logits.col(key).segment(begin, rows).array() - row_max.segment(begin, rows).array();
        column = column.exp();
        float* value = column.data();
        for (Eigen::Index q = 0; q < rows; ++q) value[q] = value[q] < kSmallestNormal ? 0.0f : value[q];
        row_sum.segment(begin, rows) += column;
    }
    const Eigen::ArrayXf inverse = (row_sum > 0).select(row_sum.inverse(), 0.0f);
    if (visible.all()) {
        weights.array().colwise() *= inverse;
        return weights;
    }
    for (Eigen::Index key = 0; key < n_kv; ++key) {  // the zeros left as they are
        const auto [begin, end] = computed(key);
        weights.col(key).segment(begin, end - begin).array() *= inverse.segment(begin, end - begin);
    }
    return weights;
}

}  // namespace headscope
