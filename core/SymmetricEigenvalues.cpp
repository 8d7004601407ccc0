#include "SymmetricEigenvalues.h"

#include "Tridiagonalization.h"

#include <cmath>
#include <limits>

namespace headscope {

using Eigen::Index;

namespace {

// What one QL sweep carries from row to row: (g, h) the rotated diagonal entry, s the squared
// sine of the last rotation; it runs from row i down to row l.
struct Sweep {
    double g = 0, h = 0, s = 0;
    double negligible = 0;  // stands in for a zero g
    Index i = -1, l = 0;
    bool running() const { return i >= l; }
};

// One row of a sweep, on squares (d the diagonal, e2 the squared off-diagonal).
inline void sweepRow(Sweep& w, double* d, double* e2) {
    const Index i = w.i;
    const double p = w.g * w.h;
    const double r = p + e2[i];
    e2[i + 1] = w.s * r;
    w.s = e2[i] / r;
    d[i + 1] = w.h + w.s * (w.h + d[i]);
    w.g = d[i] - e2[i] / w.g;
    if (w.g == 0) w.g = w.negligible;
    w.h = w.g * p / r;
    --w.i;
}

// Reinsch's rational QL on one symmetric tridiagonal, a sweep at a time, so that the caller
// may run the sweeps of two side by side. Eigenvalues are found from the top (l = 0, 1, ...)
// and kept ascending in d(0 .. l-1).
class RationalQl {
  public:
    RationalQl(Eigen::VectorXd& diagonal, const Eigen::Ref<const Eigen::VectorXd>& off_diagonal)
        : d_(diagonal), n_(diagonal.size()), e2_(Eigen::VectorXd::Zero(diagonal.size())) {
        // e2(i) = off_diagonal(i)^2 couples rows i and i+1; e2(n-1) = 0 ends every search below.
        if (n_ > 1) e2_.head(n_ - 1) = off_diagonal.array().square();
    }

    // Records every eigenvalue that has converged, then shifts and starts the next sweep.
    // False when all are found, or when one took more than 30 sweeps (failed()).
    bool beginSweep(Sweep& w) {
        constexpr double kEps = std::numeric_limits<double>::epsilon();
        for (;;) {
            if (failed_ || l_ >= n_) return false;
            if (!in_block_) {
                // eps (|d_l| + |e_l|), the largest seen: couplings below it are zero
                negligible_ = std::max(negligible_, kEps * (std::abs(d_(l_)) + std::sqrt(e2_(l_))));
                negligible2_ = negligible_ * negligible_;
                m_ = l_;  // the unreduced block is l..m
                while (e2_(m_) > negligible2_) ++m_;
                sweeps_ = 0;
                if (m_ == l_) {
                    record();
                    continue;
                }
                in_block_ = true;
            }
            if (sweeps_++ == 30) {
                failed_ = true;
                return false;
            }
            // Shift: the eigenvalue of the block's leading 2 x 2 nearer d(l), subtracted from
            // the rows not yet converged.
            const Index l = l_;
            const double s = std::sqrt(e2_(l));
            const double g = d_(l);
            const double p = (d_(l + 1) - g) / (2 * s);
            const double r = std::sqrt(p * p + 1);
            d_(l) = s / (p + std::copysign(r, p));
            const double h = g - d_(l);
            d_.tail(n_ - l - 1).array() -= h;
            shift_sum_ += h;
            w.g = d_(m_) != 0 ? d_(m_) : negligible_;
            w.h = w.g;
            w.s = 0;
            w.negligible = negligible_;
            w.i = m_ - 1;
            w.l = l;
            return true;
        }
    }

    // After the sweep's last row: d(l) has converged or the block takes another sweep.
    void endSweep(const Sweep& w) {
        e2_(l_) = w.s * w.g;
        d_(l_) = w.h;
        bool converged = w.h == 0 || std::abs(e2_(l_)) <= std::abs(negligible2_ / w.h);
        if (!converged) {
            e2_(l_) *= w.h;
            converged = e2_(l_) == 0;
        }
        if (converged) {
            in_block_ = false;
            record();
        }
    }

    void sweep(Sweep& w) {
        while (w.running()) sweepRow(w, d_.data(), e2_.data());
    }
    void interleavedSweeps(Sweep& w, RationalQl& other, Sweep& other_w) {
        double *d = d_.data(), *e2 = e2_.data(), *other_d = other.d_.data(), *other_e2 = other.e2_.data();
        while (w.running() && other_w.running()) {
            sweepRow(w, d, e2);
            sweepRow(other_w, other_d, other_e2);
        }
    }
    bool succeeded() const { return !failed_ && d_.allFinite(); }

  private:
    // d(l) + every shift so far is an eigenvalue: inserted among d(0 .. l-1), ascending.
    void record() {
        const double value = d_(l_) + shift_sum_;
        Index i = l_;
        for (; i > 0 && value < d_(i - 1); --i) d_(i) = d_(i - 1);
        d_(i) = value;
        ++l_;
    }

    Eigen::VectorXd& d_;
    const Index n_;
    Eigen::VectorXd e2_;
    Index l_ = 0, m_ = 0;
    int sweeps_ = 0;
    bool in_block_ = false, failed_ = false;
    double shift_sum_ = 0, negligible_ = 0, negligible2_ = 0;
};

// The tridiagonal (diagonal, sub-diagonal) of symmetric m, read from its lower triangle.
bool tridiagonalOf(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& diagonal, Eigen::VectorXd& sub) {
    if (!m.allFinite()) return false;
    tridiagonalize(m, diagonal, sub);  // Q^T m Q, Householder
    return true;
}

}  // namespace

bool tridiagonalEigenvalues(Eigen::VectorXd& d, const Eigen::Ref<const Eigen::VectorXd>& off_diagonal) {
    RationalQl ql(d, off_diagonal);
    Sweep w;
    while (ql.beginSweep(w)) {
        ql.sweep(w);
        ql.endSweep(w);
    }
    return ql.succeeded();
}

std::array<bool, 2> tridiagonalEigenvaluesTogether(Eigen::VectorXd& d_a, const Eigen::Ref<const Eigen::VectorXd>& off_a,
                                                   Eigen::VectorXd& d_b, const Eigen::Ref<const Eigen::VectorXd>& off_b) {
    RationalQl a(d_a, off_a), b(d_b, off_b);
    Sweep w_a, w_b;
    bool more_a = a.beginSweep(w_a), more_b = b.beginSweep(w_b);
    while (more_a && more_b) {  // side by side until one sweep ends, then it begins its next
        a.interleavedSweeps(w_a, b, w_b);
        if (!w_a.running()) {
            a.endSweep(w_a);
            more_a = a.beginSweep(w_a);
        }
        if (!w_b.running()) {
            b.endSweep(w_b);
            more_b = b.beginSweep(w_b);
        }
    }
    for (; more_a; more_a = a.beginSweep(w_a)) {  // the one left finishes alone
        a.sweep(w_a);
        a.endSweep(w_a);
    }
    for (; more_b; more_b = b.beginSweep(w_b)) {
        b.sweep(w_b);
        b.endSweep(w_b);
    }
    return {a.succeeded(), b.succeeded()};
}

bool symmetricEigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& ascending) {
    Eigen::VectorXd sub;
    return tridiagonalOf(m, ascending, sub) && tridiagonalEigenvalues(ascending, sub);
}

std::array<bool, 2> symmetricEigenvaluesTogether(const Eigen::Ref<const Eigen::MatrixXd>& m_a, Eigen::VectorXd& ascending_a,
                                                 const Eigen::Ref<const Eigen::MatrixXd>& m_b, Eigen::VectorXd& ascending_b) {
    Eigen::VectorXd sub_a, sub_b;
    const bool ready_a = tridiagonalOf(m_a, ascending_a, sub_a), ready_b = tridiagonalOf(m_b, ascending_b, sub_b);
    if (ready_a && ready_b) return tridiagonalEigenvaluesTogether(ascending_a, sub_a, ascending_b, sub_b);
    return {ready_a && tridiagonalEigenvalues(ascending_a, sub_a), ready_b && tridiagonalEigenvalues(ascending_b, sub_b)};
}

}  // namespace headscope
