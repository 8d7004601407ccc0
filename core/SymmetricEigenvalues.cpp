#include "SymmetricEigenvalues.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>

namespace headscope {

using Eigen::Index;

bool tridiagonalEigenvalues(Eigen::VectorXd& d, const Eigen::Ref<const Eigen::VectorXd>& off_diagonal) {
    const Index n = d.size();
    if (n <= 1) return true;
    constexpr double kEps = std::numeric_limits<double>::epsilon();
    // e2(i) = off_diagonal(i)^2 couples rows i and i+1; e2(n-1) = 0 ends every search below.
    Eigen::VectorXd e2 = Eigen::VectorXd::Zero(n);
    e2.head(n - 1) = off_diagonal.array().square();
    double shift_sum = 0;   // every shift so far, subtracted from the rows not yet converged
    double negligible = 0;  // eps (|d_l| + |e_l|), the largest seen: couplings below it are zero
    for (Index l = 0; l < n; ++l) {
        negligible = std::max(negligible, kEps * (std::abs(d(l)) + std::sqrt(e2(l))));
        const double negligible2 = negligible * negligible;
        Index m = l;  // the unreduced block is l..m
        while (e2(m) > negligible2) ++m;
        for (int iteration = 0; m > l; ++iteration) {
            if (iteration == 30) return false;
            // Shift: the eigenvalue of the block's leading 2 x 2 nearer d(l).
            double s = std::sqrt(e2(l));
            double g = d(l);
            double p = (d(l + 1) - g) / (2 * s);
            double r = std::sqrt(p * p + 1);
            d(l) = s / (p + std::copysign(r, p));
            double h = g - d(l);
            d.tail(n - l - 1).array() -= h;
            shift_sum += h;
            // One QL sweep from m up to l, on squares: (g, h) carry the rotated diagonal
            // entry, s the squared sine of the last rotation.
            g = d(m) != 0 ? d(m) : negligible;
            h = g;
            s = 0;
            for (Index i = m - 1; i >= l; --i) {
                p = g * h;
                r = p + e2(i);
                e2(i + 1) = s * r;
                s = e2(i) / r;
                d(i + 1) = h + s * (h + d(i));
                g = d(i) - e2(i) / g;
                if (g == 0) g = negligible;
                h = g * p / r;
            }
            e2(l) = s * g;
            d(l) = h;
            if (h == 0 || std::abs(e2(l)) <= std::abs(negligible2 / h)) break;  // d(l) converged
            e2(l) *= h;
            if (e2(l) == 0) break;
        }
        // d(0..l-1) hold the eigenvalues found so far, ascending: insert this one.
        const double value = d(l) + shift_sum;
        Index i = l;
        for (; i > 0 && value < d(i - 1); --i) d(i) = d(i - 1);
        d(i) = value;
    }
    return d.allFinite();
}

bool symmetricEigenvalues(const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::VectorXd& ascending) {
    if (m.rows() == 0) {
        ascending.resize(0);
        return true;
    }
    if (!m.allFinite()) return false;
    const Eigen::Tridiagonalization<Eigen::MatrixXd> tridiagonal(m);  // Q^T m Q, Householder
    ascending = tridiagonal.diagonal();
    return tridiagonalEigenvalues(ascending, tridiagonal.subDiagonal());
}

}  // namespace headscope
