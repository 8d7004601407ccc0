#pragma once
#include <Eigen/Core>
#include <string>

namespace headscope::io {

// One row per line, comma-separated, 9 significant digits (float32 round-trips exactly);
// masked logits are written as -inf. Throws IoError when the file cannot be written.
void writeCsv(const std::string& path, const Eigen::Ref<const Eigen::MatrixXf>& m);

}  // namespace headscope::io
