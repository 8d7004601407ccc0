#include "Spectrum.h"

#include "Gram.h"
#include "Parallel.h"
#include "SymmetricEigenvalues.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace headscope {

namespace {

// Upper-triangular R (min(m, r), r) of the thin QR of a (m, r), by Householder reflections.
Eigen::MatrixXd householderR(const Eigen::Ref<const Eigen::MatrixXd>& a) {
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    const Eigen::Index k = std::min(a.rows(), a.cols());
    return qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
}

// Cholesky-QR is exact to about eps * cond(A)^2, so it is used only when the R it gives
// has a 1-norm condition number of at most this (error <= ~1e4 eps relative to sigma_max).
constexpr double kMaxCholeskyCondition = 100.0;

// The R of a thin QR, and whether it came from the Cholesky fast path (so is well conditioned).
struct ThinR {
    Eigen::MatrixXd r;              // (min(m, r), r), upper triangular
    bool well_conditioned = false;  // 1-norm condition number <= kMaxCholeskyCondition
};

// R (r, r) with A = Q R, given A's Gram A^T A (r, r), lower half filled, when its Cholesky
// factor is well conditioned: R = chol(A^T A)^T. Empty otherwise (a pivot not positive, or
// a condition number above kMaxCholeskyCondition).
std::optional<ThinR> choleskyR(const Eigen::MatrixXd& gram) {
    const Eigen::Index r = gram.rows();
    const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(gram);  // gram = L L^T, R = L^T
    if (llt.info() != Eigen::Success) return std::nullopt;
    Eigen::MatrixXd R = llt.matrixU();
    const auto within = [](double cond) { return std::isfinite(cond) && cond <= kMaxCholeskyCondition; };
    if (!within(triangularConditionBound(R))) {  // the O(r^2) bound is too loose: invert R, O(r^3)
        const Eigen::MatrixXd R_inv = R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(r, r));
        if (!within(R.cwiseAbs().colwise().sum().maxCoeff() * R_inv.cwiseAbs().colwise().sum().maxCoeff()))
            return std::nullopt;
    }
    return ThinR{std::move(R), true};
}

// R (r, r) with A = Q R for a (m, r), m >= r, float or double, read in place (any Eigen
// matrix with direct access). Fast path: R = chol(A^T A)^T, whose cost is the Gram (m r^2 / 2
// multiply-adds, gramLower) plus O(r^3); falls back to Householder QR of A in double when A is
// rank-deficient or not well conditioned.
template <typename Factor>
ThinR thinR(const Eigen::MatrixBase<Factor>& a) {
    const Eigen::Index r = a.cols();
    if (a.rows() >= r && r > 0) {
        if (std::optional<ThinR> fast = choleskyR(gramLower(strided(a)))) return std::move(*fast);
    }
    return {householderR(a.template cast<double>()), false};
}

// Descending singular values of m (min(rows, cols) of them), by Eigen's BDCSVD without U and
// V; none for an empty m (Eigen's SVDs require at least one entry).
Eigen::VectorXd singularValues(const Eigen::MatrixXd& m) {
    if (m.size() == 0) return Eigen::VectorXd(0);
    return Eigen::BDCSVD<Eigen::MatrixXd>(m).singularValues();
}

// Squaring the core (below) is used only when its condition number is at most 1e3, i.e. its
// eigenvalues are at least this fraction of the largest.
constexpr double kMinSquaredRatio = 1e-6;

// Descending singular values of the core C = R_a R_b^T (k_a, k_b) of a product A B^T.
// When both R are well conditioned, C is square and cond(C) <= cond(R_a) cond(R_b): then
// sv(C)^2 = eig(C C^T), a symmetric eigenproblem, several times cheaper than C's SVD.
// Squaring costs accuracy in the small values only: sigma_i is off by about
// k eps sigma_max^2 / sigma_i, at most k eps 1e3 sigma_max with cond(C) <= 1e3, which the
// computed eigenvalues confirm (else, and in every other case, the SVD of C).
Eigen::VectorXd coreSingularValues(const ThinR& a, const ThinR& b) {
    const Eigen::MatrixXd c = a.r * b.r.transpose();  // (k_a, k_b)
    if (a.well_conditioned && b.well_conditioned && c.rows() == c.cols()) {
        Eigen::MatrixXd squared = Eigen::MatrixXd::Zero(c.rows(), c.rows());  // (k, k) = C C^T, lower half
        squared.selfadjointView<Eigen::Lower>().rankUpdate(c);
        const std::optional<Eigen::VectorXd> lambda = symmetricEigenvalues(squared);  // ascending
        if (lambda && lambda->size() > 0 && (*lambda)(0) > 0 &&
            (*lambda)(0) >= kMinSquaredRatio * (*lambda)(lambda->size() - 1))
            return lambda->reverse().cwiseSqrt();
    }
    return singularValues(c);
}

Spectrum spectrumOf(Eigen::VectorXd sv, Eigen::Index rows, Eigen::Index cols, double rank_rtol) {
    Spectrum s;
    s.singular_values = std::move(sv);
    s.rank = numericalRank(s.singular_values, rows, cols, rank_rtol, &s.tolerance);
    return s;
}


// R factors of the thin factors whose products A B^T are the heads' W_QK and W_OV.
struct Factors {
    std::vector<ThinR> r_query, r_key, r_value, r_output;
};

}  // namespace

double triangularConditionBound(const Eigen::Ref<const Eigen::MatrixXd>& r) {
    // M(R) (|r_jj| on the diagonal, -|r_ij| above it) has |R^{-1}| <= M(R)^{-1} entrywise and
    // M(R)^{-1} >= 0, so the column sums of M(R)^{-1}, y = M(R)^{-T} 1, bound those of |R^{-1}|.
    const Eigen::Index n = r.rows();
    Eigen::VectorXd y(n);  // M(R)^T y = 1, by forward substitution
    for (Eigen::Index j = 0; j < n; ++j)
        y(j) = (1.0 + r.col(j).head(j).cwiseAbs().dot(y.head(j))) / std::abs(r(j, j));
    return n == 0 ? 1.0 : r.cwiseAbs().colwise().sum().maxCoeff() * y.maxCoeff();
}

int numericalRank(const Eigen::Ref<const Eigen::VectorXd>& sv, Eigen::Index rows, Eigen::Index cols,
                  double rank_rtol, double* tolerance_out) {
    const double sigma_max = sv.size() > 0 ? sv(0) : 0.0;
    const double tolerance = rank_rtol > 0 ? rank_rtol * sigma_max
                                           : sigma_max * double(std::max(rows, cols)) *
                                                 std::numeric_limits<double>::epsilon();
    if (tolerance_out) *tolerance_out = tolerance;
    int rank = 0;
    for (Eigen::Index i = 0; i < sv.size(); ++i)
        if (sv(i) > tolerance) ++rank;
    return rank;
}

Spectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                         double rank_rtol) {
    // A (m, r) = Q_a R_a, B (p, r) = Q_b R_b  ->  sv(A B^T) = sv(R_a R_b^T), core (ka, kb)
    return spectrumOf(coreSingularValues(thinR(a), thinR(b)), a.rows(), b.rows(), rank_rtol);
}

Spectrum naiveProductSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                              double rank_rtol) {
    const Eigen::MatrixXd product = a * b.transpose();  // (m, p), formed explicitly
    Eigen::VectorXd sv = singularValues(product);
    const Eigen::Index keep = std::min<Eigen::Index>(sv.size(), a.cols());  // rank <= r anyway
    return spectrumOf(sv.head(keep), a.rows(), b.rows(), rank_rtol);
}


Eigen::VectorXd allSingularValues(const Spectrum& spectrum, Eigen::Index rows, Eigen::Index cols) {
    const Eigen::Index count = std::min(rows, cols);
    const Eigen::Index computed = std::min(count, spectrum.singular_values.size());
    Eigen::VectorXd all = Eigen::VectorXd::Zero(count);  // (min(rows, cols)), exact zeros past the factors
    all.head(computed) = spectrum.singular_values.head(computed);
    return all;
}

std::vector<HeadSpectra> headSpectra(const Weights& w, double rank_rtol) {
    const int h = w.heads, kv = w.kv_heads;
    const Eigen::Index d = w.dModel();
    const bool parallel = double(d) * std::max(w.d_k, w.d_v) * std::max(w.d_k, w.d_v) > 2e5;
    std::vector<HeadSpectra> spectra(h);
    // Head i's two products:
    // W_QK,i = W_i^Q (W_g^K)^T: core R_q R_k^T (d_k, d_k);
    // W_OV,i = W_g^V W_i^O = W_g^V ((W_i^O)^T)^T: core R_v R_o^T (d_v, d_v).
    const auto products = [&](int i, const ThinR& r_query, const ThinR& r_key, const ThinR& r_value,
                              const ThinR& r_output) {
        spectra[i] = {spectrumOf(coreSingularValues(r_query, r_key), d, d, rank_rtol),
                      spectrumOf(coreSingularValues(r_value, r_output), d, d, rank_rtol)};
    };
    if (kv == h) {
        // Every head has its own keys and values: a task per head computes its four factors
        // and its two cores, with no wait between the stages.
        parallelFor(h, [&](int i) {
            products(i, thinR(w.queryHead(i)), thinR(w.keyHead(i)), thinR(w.valueHead(i)),
                     thinR(w.outputHead(i).transpose()));
        }, parallel);
        return spectra;
    }
    // Grouped keys and values: thin QR of every distinct factor once (h query, kv key, kv
    // value, h output slices), then the cores.
    Factors f{std::vector<ThinR>(h), std::vector<ThinR>(kv), std::vector<ThinR>(kv), std::vector<ThinR>(h)};
    parallelFor(2 * h + 2 * kv, [&](int t) {
        if (t < h) {
            f.r_query[t] = thinR(w.queryHead(t));                        // (d, d_k)
        } else if (t < 2 * h) {
            f.r_output[t - h] = thinR(w.outputHead(t - h).transpose());  // (d, d_v)
        } else if (t < 2 * h + kv) {
            const int g = t - 2 * h;
            f.r_key[g] = thinR(w.W_K.middleCols(g * w.d_k, w.d_k));      // (d, d_k)
        } else {
            const int g = t - 2 * h - kv;
            f.r_value[g] = thinR(w.W_V.middleCols(g * w.d_v, w.d_v));    // (d, d_v)
        }
    }, parallel);
    parallelFor(h, [&](int i) {
        const int g = w.kvHeadOf(i);
        products(i, f.r_query[i], f.r_key[g], f.r_value[g], f.r_output[i]);
    }, parallel);
    return spectra;
}

std::vector<HeadSpectra> naiveHeadSpectra(const Weights& w, double rank_rtol, int heads) {
    std::vector<HeadSpectra> spectra(heads < 0 ? w.heads : std::min(heads, w.heads));
    for (int i = 0; i < static_cast<int>(spectra.size()); ++i) {
        spectra[i].qk = naiveProductSpectrum(w.queryHead(i).cast<double>(), w.keyHead(i).cast<double>(), rank_rtol);
        spectra[i].ov = naiveProductSpectrum(w.valueHead(i).cast<double>(),
                                             w.outputHead(i).transpose().cast<double>(), rank_rtol);
    }
    return spectra;
}

}  // namespace headscope
