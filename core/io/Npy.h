#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0).
// Reading accepts little- and big-endian float32 / float64 ('<f4', '>f4', '<f8', '>f8')
// in C order with any number of dims (0-D included), converting to float; a float64
// value too large for float32 is an error. Writing always produces '<f4', C order,
// version 1.0 (2.0 only when the header would not fit), byte-identical to np.save.
// Every problem with a file is reported as one IoError naming the file.

#include <string>

#include <Eigen/Core>

#include "io/Tensor.h"

namespace headscope::io {

Tensor readNpy(const std::string& path);

void writeNpy(const std::string& path, const Tensor& tensor);
void writeNpy(const std::string& path, const Eigen::Ref<const Eigen::MatrixXf>& matrix);

}  // namespace headscope::io
