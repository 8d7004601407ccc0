#include "SingularValues.h"

#include <Eigen/Householder>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace headscope {

namespace {

using Eigen::Index;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// a (m, n), m >= n -> diagonal d (n) and superdiagonal e (n-1) of U^T a V.
void bidiagonalize(Eigen::MatrixXd& a, Eigen::VectorXd& d, Eigen::VectorXd& e) {
    const Index m = a.rows(), n = a.cols();
    d.resize(n);
    e.resize(std::max<Index>(n - 1, 0));
    Eigen::VectorXd work(std::max(m, n));
    for (Index k = 0; k < n; ++k) {
        double tau = 0, beta = 0;
        a.col(k).tail(m - k).makeHouseholderInPlace(tau, beta);  // zero below (k, k)
        d(k) = beta;
        if (k + 1 < n)
            a.bottomRightCorner(m - k, n - k - 1)
                .applyHouseholderOnTheLeft(a.col(k).tail(m - k - 1), tau, work.data());
        if (k + 1 < n) {
            a.row(k).tail(n - k - 1).makeHouseholderInPlace(tau, beta);  // zero right of (k, k+1)
            e(k) = beta;
            if (k + 1 < m)
                a.bottomRightCorner(m - k - 1, n - k - 1)
                    .applyHouseholderOnTheRight(a.row(k).tail(n - k - 2).transpose(), tau, work.data());
        }
    }
}

// Givens rotation: [c s; -s c]^T [y; z] = [r; 0].
struct Givens {
    double c = 1, s = 0, r = 0;
    Givens(double y, double z) {
        const double big = std::max(std::abs(y), std::abs(z));
        // sqrt(y^2 + z^2) cannot over- or underflow in this range; std::hypot is slow.
        r = (big > 1e-150 && big < 1e150) ? std::sqrt(y * y + z * z) : std::hypot(y, z);
        if (r != 0) c = y / r, s = z / r;
    }
};

// One implicit-shift QR sweep on the unreduced block lo..hi of the bidiagonal (d, e).
void qrSweep(Eigen::VectorXd& d, Eigen::VectorXd& e, Index lo, Index hi) {
    // Wilkinson shift: eigenvalue of the trailing 2x2 of B^T B nearer its last entry.
    const double a = d(hi - 1) * d(hi - 1) + (hi - 1 > lo ? e(hi - 2) * e(hi - 2) : 0.0);
    const double b = d(hi - 1) * e(hi - 1);
    const double c = d(hi) * d(hi) + e(hi - 1) * e(hi - 1);
    const double delta = 0.5 * (a - c);
    const double root = std::hypot(delta, b);
    const double mu = (delta == 0 && b == 0) ? c : c - b * b / (delta + (delta >= 0 ? root : -root));
    double y = d(lo) * d(lo) - mu, z = d(lo) * e(lo);
    for (Index k = lo; k < hi; ++k) {
        const Givens right(y, z);  // columns k, k+1
        if (k > lo) e(k - 1) = right.r;
        const double dk = d(k), ek = e(k), dk1 = d(k + 1);
        d(k) = right.c * dk + right.s * ek;
        e(k) = -right.s * dk + right.c * ek;
        const double bulge = right.s * dk1;  // at (k+1, k)
        d(k + 1) = right.c * dk1;
        const Givens left(d(k), bulge);  // rows k, k+1
        d(k) = left.r;
        const double ek2 = e(k), dk2 = d(k + 1);
        e(k) = left.c * ek2 + left.s * dk2;
        d(k + 1) = -left.s * ek2 + left.c * dk2;
        if (k + 1 < hi) {
            z = left.s * e(k + 1);  // bulge at (k, k+2)
            e(k + 1) = left.c * e(k + 1);
            y = e(k);
        }
    }
}

// d(i) == 0 inside the block: rotate row i against the rows below to zero e(i).
void chaseRow(Eigen::VectorXd& d, Eigen::VectorXd& e, Index i, Index hi) {
    double f = e(i);
    e(i) = 0;
    for (Index j = i + 1; j <= hi && f != 0; ++j) {
        const Givens g(d(j), f);
        d(j) = g.r;
        if (j < hi) {
            f = -g.s * e(j);
            e(j) = g.c * e(j);
        }
    }
}

// d(hi) == 0: rotate column hi against the columns to its left to zero e(hi-1).
void chaseColumn(Eigen::VectorXd& d, Eigen::VectorXd& e, Index lo, Index hi) {
    double f = e(hi - 1);
    e(hi - 1) = 0;
    for (Index j = hi - 1; j >= lo && f != 0; --j) {
        const Givens g(d(j), f);
        d(j) = g.r;
        if (j > lo) {
            f = -g.s * e(j - 1);
            e(j - 1) = g.c * e(j - 1);
        }
    }
}

// Singular values of the bidiagonal, in place in d; false if it did not converge.
bool bidiagonalValues(Eigen::VectorXd& d, Eigen::VectorXd& e) {
    const Index n = d.size();
    const double norm = std::max(d.cwiseAbs().maxCoeff(), e.size() ? e.cwiseAbs().maxCoeff() : 0.0);
    if (norm == 0) return true;
    const double tiny = kEps * norm;
    Index hi = n - 1;
    for (long iterations = 0; hi > 0; ++iterations) {
        if (iterations > 100 * n) return false;
        for (Index i = 0; i < hi; ++i)
            if (std::abs(e(i)) <= kEps * (std::abs(d(i)) + std::abs(d(i + 1))) || std::abs(e(i)) <= tiny * kEps)
                e(i) = 0;
        if (e(hi - 1) == 0) {  // d(hi) has converged
            --hi;
            continue;
        }
        Index lo = hi - 1;
        while (lo > 0 && e(lo - 1) != 0) --lo;
        bool split = false;
        for (Index i = lo; i <= hi; ++i) {
            if (std::abs(d(i)) <= tiny) {
                d(i) = 0;
                if (i < hi)
                    chaseRow(d, e, i, hi);
                else
                    chaseColumn(d, e, lo, hi);
                split = true;
                break;
            }
        }
        if (!split) qrSweep(d, e, lo, hi);
    }
    return true;
}

}  // namespace

Eigen::VectorXd singularValues(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    if (m.size() == 0) return {};
    Eigen::MatrixXd a = m.rows() >= m.cols() ? Eigen::MatrixXd(m) : Eigen::MatrixXd(m.transpose());
    if (!a.allFinite()) return Eigen::VectorXd::Constant(a.cols(), std::numeric_limits<double>::quiet_NaN());
    Eigen::VectorXd d, e;
    bidiagonalize(a, d, e);
    if (!bidiagonalValues(d, e)) return Eigen::BDCSVD<Eigen::MatrixXd>(m).singularValues();  // never seen
    Eigen::VectorXd sv = d.cwiseAbs();
    std::sort(sv.data(), sv.data() + sv.size(), std::greater<>());
    return sv;
}

}  // namespace headscope
