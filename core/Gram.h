#pragma once
// The Gram matrix A^T A of a tall thin factor A (rows, cols), in double precision, read straight
// from the weights (float or double, any strides): the spectra's largest cost.
// Two implementations, one switch (CMake option HEADSCOPE_GRAM_KERNEL, ON by default with GCC
// and clang; docs/decisions/gram-kernel.md says why and when to drop it):
// - eigenGramLower: stock Eigen, a double copy and a symmetric rank update. The reference.
// - kernelGramLower (GramKernel.cpp, GCC/clang vector extensions): rows are packed a tile at a
//   time, converted to double, into a buffer that stays in the L1 cache; a register-blocked
//   kernel adds each row's outer product a_r a_r^T to the lower triangle, so every entry is a
//   plain sum over rows 0, 1, ... of exact-in-double products (for float input).
// `headscope-cli bench` prints what the spectra cost with the one the build uses.

#include <Eigen/Core>

namespace headscope {

// A matrix read through explicit steps: element (r, c) is data[r * row_step + c * col_step].
template <typename Scalar>
struct StridedMatrix {
    const Scalar* data = nullptr;
    Eigen::Index rows = 0, cols = 0;
    Eigen::Index row_step = 0, col_step = 0;
};

// The strides of any Eigen matrix expression with direct access (a block, a transposed block).
template <typename Derived>
StridedMatrix<typename Derived::Scalar> strided(const Eigen::MatrixBase<Derived>& m) {
    static_assert(bool(Derived::Flags & Eigen::DirectAccessBit), "strided() needs a matrix in memory");
    const bool row_major = bool(Derived::Flags & Eigen::RowMajorBit);
    return {m.derived().data(), m.rows(), m.cols(), row_major ? m.outerStride() : m.innerStride(),
            row_major ? m.innerStride() : m.outerStride()};
}

// A (rows, cols) -> A^T A (cols, cols): the lower triangle and diagonal are set, the strictly
// upper triangle is unspecified. Entry (i, j) is sum_r double(A(r, i)) * double(A(r, j)).
// gramLower is the kernel when the build has it, else Eigen's.
Eigen::MatrixXd gramLower(const StridedMatrix<float>& a);
Eigen::MatrixXd gramLower(const StridedMatrix<double>& a);

// Stock Eigen: summed in the order Eigen's product kernels choose (blocked, with fused
// multiply-adds where the target has them), so within a few eps of the plain sum.
Eigen::MatrixXd eigenGramLower(const StridedMatrix<float>& a);
Eigen::MatrixXd eigenGramLower(const StridedMatrix<double>& a);

#if HEADSCOPE_GRAM_KERNEL
// The kernel: every entry is summed in row order, without fused multiply-add, whatever the
// target and the thread count.
Eigen::MatrixXd kernelGramLower(const StridedMatrix<float>& a);
Eigen::MatrixXd kernelGramLower(const StridedMatrix<double>& a);
#endif

}  // namespace headscope
