// The row softmax of masked logits (Engine.h), the attention's largest cost after its products.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "Engine.h"

namespace headscope {

namespace {
constexpr float kMasked = -std::numeric_limits<float>::infinity();  // a masked logit
constexpr float kSmallestNormal = std::numeric_limits<float>::min();

// The rows of a causal softmax's column (key `key`, n_q rows at `column`) left out: at most `key`,
// up to a 64-byte boundary (the widest packet) so that Eigen's vectorised exp splits the rest into the
// same packets and scalar ends as the whole column, whose numbers it then gives bit for bit.
Eigen::Index causalSkippedRows(const float* column, Eigen::Index key, Eigen::Index n_q) {
    constexpr Eigen::Index kPacket = 64 / sizeof(float);
    const auto misaligned = Eigen::Index(reinterpret_cast<std::uintptr_t>(column) % 64 / sizeof(float));
    const Eigen::Index first_aligned = (kPacket - misaligned) % kPacket;  // the column's first row on a boundary
    if (key < first_aligned) return 0;
    return std::min(first_aligned + (key - first_aligned) / kPacket * kPacket, n_q);
}
}  // namespace

Eigen::MatrixXf softmaxRows(const Eigen::Ref<const Eigen::MatrixXf>& logits, bool causal) {
    const Eigen::Index n_q = logits.rows(), n_kv = logits.cols();
    Eigen::VectorXf row_max;  // (n_q)
    if (causal) {             // each key's column from its own query on
        row_max.setConstant(n_q, kMasked);
        for (Eigen::Index key = 0; key < n_kv; ++key) {
            const Eigen::Index rows = n_q - std::min(key, n_q);
            row_max.tail(rows) = row_max.tail(rows).cwiseMax(logits.col(key).tail(rows));
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
    // Causal: key k's queries before it are masked and get exactly 0 without their exp.
    Eigen::MatrixXf weights(n_q, n_kv);  // (n_q, n_kv)
    Eigen::ArrayXf row_sum = Eigen::ArrayXf::Zero(n_q);
    for (Eigen::Index key = 0; key < n_kv; ++key) {
        const Eigen::Index skipped = causal ? causalSkippedRows(weights.col(key).data(), key, n_q) : 0,
                           rows = n_q - skipped;
        weights.col(key).head(skipped).setZero();
        auto column = weights.col(key).tail(rows).array();  // (rows)
        column = logits.col(key).tail(rows).array() - row_max.tail(rows).array();
        column = column.exp();
        float* value = column.data();
        for (Eigen::Index q = 0; q < rows; ++q) value[q] = value[q] < kSmallestNormal ? 0.0f : value[q];
        row_sum.tail(rows) += column;
    }
    const Eigen::ArrayXf inverse = (row_sum > 0).select(row_sum.inverse(), 0.0f);
    if (!causal) {
        weights.array().colwise() *= inverse;
        return weights;
    }
    for (Eigen::Index key = 0; key < n_kv; ++key) {  // the zeros left as they are
        const Eigen::Index rows = n_q - causalSkippedRows(weights.col(key).data(), key, n_q);
        weights.col(key).tail(rows).array() *= inverse.tail(rows);
    }
    return weights;
}

}  // namespace headscope
