#pragma once
// A dense float tensor as stored in .npy / .safetensors files: shape plus data in
// C (row-major) order. A 0-D tensor has an empty shape and one element.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "io/IoError.h"

namespace headscope::io {

// Product of the dims, or nullopt when a dim is negative or the product overflows
// int64. A zero dim makes the product 0 whatever the other dims are.
inline std::optional<std::int64_t> checkedElementCount(const std::vector<std::int64_t>& shape) {
    for (std::int64_t dim : shape)
        if (dim < 0) return std::nullopt;
    for (std::int64_t dim : shape)
        if (dim == 0) return 0;
    std::int64_t count = 1;
    for (std::int64_t dim : shape) {
        if (count > std::numeric_limits<std::int64_t>::max() / dim) return std::nullopt;
        count *= dim;
    }
    return count;
}

// "(3, 4)", "(5,)", "()": the Python repr of the shape tuple, for messages and .npy headers.
inline std::string shapeToString(const std::vector<std::int64_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + (shape.size() == 1 ? ",)" : ")");
}

struct Tensor {
    std::vector<std::int64_t> shape;
    std::vector<float> data;  // C order, size() elements

    // Number of elements the shape describes; IoError when the shape is invalid.
    std::int64_t size() const {
        const auto count = checkedElementCount(shape);
        if (!count) throw IoError("tensor shape " + shapeToString(shape) + " has a negative dimension or too many elements");
        return *count;
    }
};

// (rows, cols) tensor -> (rows, cols) matrix. IoError unless the tensor is 2-D and
// its data holds exactly rows * cols values.
inline Eigen::MatrixXf toMatrix(const Tensor& tensor) {
    if (tensor.shape.size() != 2)
        throw IoError("expected a 2-D tensor, found shape " + shapeToString(tensor.shape));
    const std::int64_t count = tensor.size();
    if (static_cast<std::uint64_t>(count) != tensor.data.size())
        throw IoError("tensor of shape " + shapeToString(tensor.shape) + " holds " +
                      std::to_string(tensor.data.size()) + " values instead of " + std::to_string(count));
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const RowMajor>(tensor.data.data(), tensor.shape[0], tensor.shape[1]);
}

// (rows, cols) matrix -> (rows, cols) tensor in C order.
inline Tensor fromMatrix(const Eigen::Ref<const Eigen::MatrixXf>& matrix) {
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Tensor tensor;
    tensor.shape = {static_cast<std::int64_t>(matrix.rows()), static_cast<std::int64_t>(matrix.cols())};
    tensor.data.resize(static_cast<std::size_t>(matrix.size()));
    Eigen::Map<RowMajor>(tensor.data.data(), matrix.rows(), matrix.cols()) = matrix;
    return tensor;
}

}  // namespace headscope::io
