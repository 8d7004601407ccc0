#include "Tridiagonalization.h"

#include "Packet.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace headscope {

namespace {

using Eigen::Index;
using namespace simd;  // Packet, kLanes, load, store, wholePackets

using ConstVector = Eigen::Map<const Eigen::VectorXd>;

// The reflector H = I - tau v v^T, v(len - 1) = 1, with H x = beta e_(len - 1): it zeroes
// x(0 .. len - 2) into its last entry. x (len) is read, v (len) written; returns beta.
double reflectorToLast(const double* x, Index len, double* v, double& tau) {
    const double pivot = x[len - 1];
    const double rest = len > 1 ? ConstVector(x, len - 1).squaredNorm() : 0.0;
    v[len - 1] = 1;
    if (rest <= std::numeric_limits<double>::min()) {  // nothing to zero: H = I
        tau = 0;
        for (Index i = 0; i + 1 < len; ++i) v[i] = 0;
        return pivot;
    }
    const double norm = std::sqrt(pivot * pivot + rest);
    const double beta = pivot >= 0 ? -norm : norm;  // the sign that avoids cancellation
    const double scale = 1.0 / (pivot - beta);
    for (Index i = 0; i + 1 < len; ++i) v[i] = x[i] * scale;
    tau = (beta - pivot) / beta;
    return beta;
}

// Over columns j < count of a (leading dimension ld), rows row0 .. row0 + 8 packets:
// a(:, j) -= v w_j + w v_j (the rank-2 update), then y += a(:, j) next_j (the next step's
// matrix-vector product, column by column). v, w, y stay in registers across the columns.
template <int packets>
void updateAndMultiply(double* a, Index ld, Index count, const double* v, const double* w, const double* next,
                       double* y, Index row0) {
    Packet vp[packets], wp[packets], yp[packets];
    for (int p = 0; p < packets; ++p) {
        vp[p] = load(v + row0 + p * kLanes);
        wp[p] = load(w + row0 + p * kLanes);
        yp[p] = load(y + row0 + p * kLanes);
    }
    for (Index j = 0; j < count; ++j) {
        double* column = a + j * ld + row0;
        const double w_j = w[j], v_j = v[j], next_j = next[j];
        for (int p = 0; p < packets; ++p) {
            Packet c = load(column + p * kLanes);
            c -= vp[p] * w_j + wp[p] * v_j;
            store(column + p * kLanes, c);
            yp[p] += c * next_j;
        }
    }
    for (int p = 0; p < packets; ++p) store(y + row0 + p * kLanes, yp[p]);
}

}  // namespace

void tridiagonalize(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& diagonal, Eigen::VectorXd& off_diagonal) {
    const Index n = m.rows();
    diagonal.resize(n);
    off_diagonal.resize(std::max<Index>(n - 1, 0));
    if (n == 0) return;
    // A (ld, n): m in full, rows padded to whole packets; then v, w, y, next (ld) each.
    const Index ld = wholePackets(n);
    std::vector<double> buffer(ld * (n + 4), 0.0);
    double* a = buffer.data();
    for (Index j = 0; j < n; ++j) {
        for (Index i = 0; i < j; ++i) a[j * ld + i] = m(j, i);
        for (Index i = j; i < n; ++i) a[j * ld + i] = m(i, j);
    }
    double *v = a + ld * n, *w = v + ld, *y = w + ld, *next = y + ld;

    // Each step takes the active block A(0 .. size-1, 0 .. size-1) and its reflector v (size),
    // the last column's, which zeroed all but the entry next to the diagonal: that entry is
    // the off-diagonal, and H A H (size, size) is left to reduce, given y = A v (size).
    diagonal(n - 1) = a[(n - 1) * ld + n - 1];
    if (n == 1) return;
    double tau = 0;
    off_diagonal(n - 2) = reflectorToLast(a + (n - 1) * ld, n - 1, v, tau);
    Index size = n - 1;
    for (Index j = 0; j < size; ++j)
        for (Index i = 0; i < size; ++i) y[i] += a[j * ld + i] * v[j];
    for (;;) {
        // H A H = A - v w^T - w v^T with w = tau y - (tau^2 / 2)(y . v) v.
        const double half = 0.5 * tau * tau * ConstVector(y, size).dot(ConstVector(v, size));
        for (Index i = 0; i < size; ++i) w[i] = tau * y[i] - half * v[i];
        for (Index i = size; i < wholePackets(size); ++i) v[i] = w[i] = 0;  // rows past the block stay finite
        double* last = a + (size - 1) * ld;  // the next step's column, updated first
        for (Index i = 0; i < size; ++i) last[i] -= v[i] * w[size - 1] + w[i] * v[size - 1];
        diagonal(size - 1) = last[size - 1];
        if (size == 1) return;
        double next_tau = 0;
        off_diagonal(size - 2) = reflectorToLast(last, size - 1, next, next_tau);
        // The rest of the block: update it, and form y = A next on the way.
        const Index rows = size - 1, row_packets = wholePackets(rows) / kLanes;
        for (Index i = 0; i < row_packets * kLanes; ++i) y[i] = 0;
        for (Index i = rows; i < row_packets * kLanes; ++i) next[i] = 0;
        Index p = 0;
        for (; p + 4 <= row_packets; p += 4) updateAndMultiply<4>(a, ld, rows, v, w, next, y, p * kLanes);
        switch (row_packets - p) {
            case 3: updateAndMultiply<3>(a, ld, rows, v, w, next, y, p * kLanes); break;
            case 2: updateAndMultiply<2>(a, ld, rows, v, w, next, y, p * kLanes); break;
            case 1: updateAndMultiply<1>(a, ld, rows, v, w, next, y, p * kLanes); break;
            default: break;
        }
        std::swap(v, next);
        tau = next_tau;
        size = rows;
    }
}

}  // namespace headscope
