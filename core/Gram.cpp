#include "Gram.h"

namespace headscope {

namespace {

// A (rows, cols) read through its steps -> A^T A (cols, cols), lower triangle, by Eigen:
// a double copy of A and a symmetric rank update.
template <typename Scalar>
Eigen::MatrixXd eigenGram(const StridedMatrix<Scalar>& a) {
    using Steps = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;  // (between columns, between rows)
    using Source = Eigen::Map<const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>, 0, Steps>;
    if (a.rows == 0 || a.cols == 0) return Eigen::MatrixXd::Zero(a.cols, a.cols);  // Eigen's blocking divides by rows
    const Eigen::MatrixXd a_double = Source(a.data, a.rows, a.cols, Steps(a.col_step, a.row_step)).template cast<double>();
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(a.cols, a.cols);  // (cols, cols)
    g.selfadjointView<Eigen::Lower>().rankUpdate(a_double.transpose());
    return g;
}

}  // namespace

Eigen::MatrixXd eigenGramLower(const StridedMatrix<float>& a) { return eigenGram(a); }
Eigen::MatrixXd eigenGramLower(const StridedMatrix<double>& a) { return eigenGram(a); }

#if HEADSCOPE_GRAM_KERNEL
Eigen::MatrixXd gramLower(const StridedMatrix<float>& a) { return kernelGramLower(a); }
Eigen::MatrixXd gramLower(const StridedMatrix<double>& a) { return kernelGramLower(a); }
#else
Eigen::MatrixXd gramLower(const StridedMatrix<float>& a) { return eigenGram(a); }
Eigen::MatrixXd gramLower(const StridedMatrix<double>& a) { return eigenGram(a); }
#endif

}  // namespace headscope
