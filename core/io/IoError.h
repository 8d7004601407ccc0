#pragma once
// The one exception type thrown by core/io: a single sentence saying which file or
// tensor is wrong and how.

#include <stdexcept>

namespace headscope::io {

struct IoError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace headscope::io
