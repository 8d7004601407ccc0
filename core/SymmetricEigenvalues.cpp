#include "SymmetricEigenvalues.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

namespace headscope {

namespace {

// The eigenvalues (rt1, rt2) of the 2 x 2 symmetric [[a, b], [b, c]], |rt1| >= |rt2|: the larger
// from the trace and the discriminant, the smaller from the determinant, so neither suffers
// the cancellation of (a + c -+ root) / 2.
void eigenvalues2x2(double a, double b, double c, double& rt1, double& rt2) {
    const double sum = a + c;
    const double root = std::hypot(a - c, 2 * b);
    const double larger_magnitude = std::abs(a) > std::abs(c) ? a : c;
    const double smaller_magnitude = std::abs(a) > std::abs(c) ? c : a;
    if (sum == 0) {
        rt1 = 0.5 * root;
        rt2 = -0.5 * root;
        return;
    }
    rt1 = 0.5 * (sum + std::copysign(root, sum));
    rt2 = (larger_magnitude / rt1) * smaller_magnitude - (b / rt1) * b;  // det / rt1
}

// One unreduced block: d (n), e2 (n - 1) the squares of its off-diagonal, scaled so that its
// largest entry is about 1. Root-free implicit QL with Wilkinson's shift, deflating at d(0);
// on return d holds the block's eigenvalues, unordered. False when `sweeps_left` runs out.
bool rootFreeQl(Eigen::Ref<Eigen::VectorXd> d, Eigen::Ref<Eigen::VectorXd> e2, long& sweeps_left) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    constexpr double eps2 = eps * eps;
    constexpr double kSmallestNormal = std::numeric_limits<double>::min();
    const Eigen::Index n = d.size();
    Eigen::Index l = 0;
    while (l < n) {
        // The first negligible e(m), m >= l: |e(m)| <= eps sqrt(|d(m) d(m + 1)|) (a relative test,
        // which keeps small eigenvalues of graded matrices accurate).
        Eigen::Index m = l;
        while (m < n - 1 && e2(m) > eps2 * std::abs(d(m) * d(m + 1))) ++m;
        if (m < n - 1) e2(m) = 0;
        if (m == l) {  // d(l) is an eigenvalue
            ++l;
            continue;
        }
        if (m == l + 1) {  // a 2 x 2 block, solved directly
            eigenvalues2x2(d(l), std::sqrt(e2(l)), d(l + 1), d(l), d(l + 1));
            e2(l) = 0;
            l += 2;
            continue;
        }
        if (sweeps_left-- == 0) return false;
        // Shift: the eigenvalue of the leading 2 x 2 [[d(l), e(l)], [e(l), d(l + 1)]] nearer d(l).
        const double e_l = std::sqrt(e2(l));
        double sigma = (d(l + 1) - d(l)) / (2 * e_l);
        sigma = d(l) - e_l / (sigma + std::copysign(std::hypot(sigma, 1.0), sigma));
        // One QL sweep over rows m .. l, chasing the bulge upwards. With c, s the squared cosine
        // and sine of each rotation, gamma the rotated diagonal minus the shift and
        // p = gamma^2 / c = gamma^2 r / p_previous: 1 / p is taken beside 1 / r, so that one
        // division, not three, stands on the chain from one row to the next (1.2x the sweep).
        double c = 1, s = 0;
        double gamma = d(m) - sigma;
        double p = gamma * gamma;
        for (Eigen::Index i = m - 1; i >= l; --i) {
            const double bb = e2(i);
            const double r = p + bb;  // > 0: bb > 0 in an unreduced block
            const double inv_p = 1.0 / p;
            if (i != m - 1) e2(i + 1) = s * r;
            const double old_c = c;
            const double inv_r = 1.0 / r;
            c = p * inv_r;
            s = bb * inv_r;
            const double old_gamma = gamma;
            const double alpha = d(i);
            gamma = c * (alpha - sigma) - s * old_gamma;
            d(i + 1) = old_gamma + (alpha - gamma);
            // 1 / p overflows below the smallest normal p: then gamma^2 / c, as dsterf writes it.
            p = c == 0 ? old_c * bb : p >= kSmallestNormal ? gamma * gamma * (r * inv_p) : gamma * gamma / c;
        }
        e2(l) = s * p;
        d(l) = sigma + gamma;
    }
    return true;
}

}  // namespace

std::optional<Eigen::VectorXd> tridiagonalEigenvalues(Eigen::VectorXd d, Eigen::VectorXd e) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    const Eigen::Index n = d.size();
    if (e.size() != std::max<Eigen::Index>(n - 1, 0) || !d.allFinite() || !e.allFinite()) return std::nullopt;
    long sweeps_left = 30 * static_cast<long>(n);
    Eigen::Index start = 0;
    while (start < n) {
        // The unreduced block [start, end]: it ends at the first e(end) negligible beside its
        // neighbours on the diagonal.
        Eigen::Index end = start;
        while (end < n - 1 && std::abs(e(end)) > eps * std::sqrt(std::abs(d(end))) * std::sqrt(std::abs(d(end + 1))))
            ++end;
        const Eigen::Index size = end - start + 1;
        if (size > 1) {
            auto block = d.segment(start, size);
            auto block_e = e.segment(start, size - 1);
            const double largest = std::max(block.cwiseAbs().maxCoeff(), block_e.cwiseAbs().maxCoeff());
            // Scaled by a power of two (exact) to a largest entry in [1, 2): e^2 neither overflows
            // nor underflows below what is negligible anyway.
            const int exponent = largest > 0 ? std::ilogb(largest) : 0;
            block = block.unaryExpr([exponent](double x) { return std::scalbn(x, -exponent); });
            Eigen::VectorXd e2 = block_e.unaryExpr([exponent](double x) { return std::scalbn(x, -exponent); });
            e2 = e2.cwiseAbs2();
            // Deflate at the end with the smaller diagonal entry (as dsterf chooses QL or QR):
            // the QL sweep deflates at the top, so a block whose bottom is smaller is reversed.
            if (std::abs(block(size - 1)) < std::abs(block(0))) {
                block.reverseInPlace();
                e2.reverseInPlace();
            }
            if (!rootFreeQl(block, e2, sweeps_left)) return std::nullopt;
            block = block.unaryExpr([exponent](double x) { return std::scalbn(x, exponent); });
        }
        start = end + 1;
    }
    std::sort(d.data(), d.data() + n);
    return d;
}

std::optional<Eigen::VectorXd> symmetricEigenvalues(const Eigen::MatrixXd& lower) {
    if (lower.rows() != lower.cols()) return std::nullopt;
    if (lower.rows() == 0) return Eigen::VectorXd(0);
    const Eigen::Tridiagonalization<Eigen::MatrixXd> tridiagonal(lower);  // reads the lower triangle
    return tridiagonalEigenvalues(tridiagonal.diagonal(), tridiagonal.subDiagonal());
}

}  // namespace headscope
