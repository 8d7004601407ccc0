#pragma once
// The one tolerance check of the test suite: every element within atol + rtol * |expected|
// (NumPy's allclose), and on failure a message with the largest difference, where it is,
// and both values, so a regression says how far off it is and where.
//   EXPECT_TRUE(allClose(actual, expected, 1e-6));
//   EXPECT_TRUE(allClose(actual_vector, expected_vector, 1e-6, 0, {heads, n_q, n_kv}));
// Bitwise-equal paths are asserted with EXPECT_EQ / ==, not with this.

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace headscope::test {

struct Difference {
    double max_abs = 0;        // largest |actual - expected| (infinity for a NaN mismatch)
    std::size_t index = 0;     // flat index of that element
    double actual = 0, expected = 0;
    std::size_t violations = 0;  // elements outside the tolerance
};

namespace detail {

inline std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

// "[1, 2, 3]" for a flat C-order index into shape; "[index]" without a shape.
inline std::string where(std::size_t index, const std::vector<std::int64_t>& shape) {
    if (shape.empty()) return "[" + std::to_string(index) + "]";
    std::vector<std::size_t> parts(shape.size());
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        const auto dim = static_cast<std::size_t>(shape[axis] > 0 ? shape[axis] : 1);
        parts[axis] = index % dim;
        index /= dim;
    }
    std::string text = "[";
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + std::to_string(parts[i]);
    return text + "]";
}

template <class Get>
Difference compare(std::size_t count, Get get, double atol, double rtol) {
    Difference d;
    for (std::size_t i = 0; i < count; ++i) {
        const auto [a, e] = get(i);
        double diff;
        if ((std::isnan(a) && std::isnan(e)) || (std::isinf(a) && a == e)) diff = 0;  // the same NaN or infinity
        else if (!std::isfinite(a) || !std::isfinite(e)) diff = INFINITY;
        else diff = std::abs(a - e);
        if (!(diff == 0 || (std::isfinite(diff) && diff <= atol + rtol * std::abs(e)))) ++d.violations;
        if (i == 0 || diff > d.max_abs) d.max_abs = diff, d.index = i, d.actual = a, d.expected = e;
    }
    return d;
}

inline ::testing::AssertionResult report(const Difference& d, std::size_t count, double atol, double rtol,
                                         const std::vector<std::int64_t>& shape) {
    const std::string text = "max |actual - expected| = " + number(d.max_abs) + " at " + where(d.index, shape) +
                             " (actual " + number(d.actual) + ", expected " + number(d.expected) + "); allowed " +
                             number(atol) + (rtol > 0 ? " + " + number(rtol) + " * |expected|" : "") + "; " +
                             std::to_string(d.violations) + " of " + std::to_string(count) + " elements outside";
    return d.violations == 0 ? ::testing::AssertionSuccess() << text : ::testing::AssertionFailure() << text;
}

}  // namespace detail

// Largest difference between two equally shaped Eigen matrices (column-major walk,
// reported as [row, col]).
template <class A, class B>
Difference difference(const Eigen::DenseBase<A>& actual, const Eigen::DenseBase<B>& expected, double atol = 0,
                      double rtol = 0) {
    const Eigen::Index rows = expected.rows();
    return detail::compare(
        static_cast<std::size_t>(expected.size()),
        [&](std::size_t i) {
            const Eigen::Index r = static_cast<Eigen::Index>(i) % rows, c = static_cast<Eigen::Index>(i) / rows;
            return std::pair{double(actual.derived()(r, c)), double(expected.derived()(r, c))};
        },
        atol, rtol);
}

template <class A, class B>
::testing::AssertionResult allClose(const Eigen::DenseBase<A>& actual, const Eigen::DenseBase<B>& expected, double atol,
                                    double rtol = 0) {
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
        return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols() << ") instead of ("
                                             << expected.rows() << ", " << expected.cols() << ")";
    Difference d = difference(actual, expected, atol, rtol);
    // Report [row, col]: convert the column-major flat index.
    const auto rows = static_cast<std::size_t>(expected.rows());
    const std::size_t row = rows ? d.index % rows : 0, col = rows ? d.index / rows : 0;
    d.index = row * static_cast<std::size_t>(expected.cols()) + col;
    return detail::report(d, static_cast<std::size_t>(expected.size()), atol, rtol, {expected.rows(), expected.cols()});
}

// Flat C-order data; `shape` (optional) turns the flat index into [i, j, k] in the message.
template <class T, class U>
::testing::AssertionResult allClose(const std::vector<T>& actual, const std::vector<U>& expected, double atol,
                                    double rtol = 0, const std::vector<std::int64_t>& shape = {}) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << actual.size() << " values instead of " << expected.size();
    const Difference d = detail::compare(
        expected.size(), [&](std::size_t i) { return std::pair{double(actual[i]), double(expected[i])}; }, atol, rtol);
    return detail::report(d, expected.size(), atol, rtol, shape);
}

// Largest |a - b| over every element (a plain number, for a stated bound).
inline double maxAbsDifference(const Eigen::MatrixXf& a, const Eigen::MatrixXf& b) {
    return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace headscope::test
