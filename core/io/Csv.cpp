#include "io/Csv.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include "io/IoError.h"

namespace headscope::io {

void writeCsv(const std::string& path, const Eigen::Ref<const Eigen::MatrixXf>& m) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) throw IoError("cannot write " + path);
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const float v = m(r, c);
            if (c > 0) std::fputc(',', f.get());
            if (std::isinf(v))
                std::fputs(v < 0 ? "-inf" : "inf", f.get());
            else
                std::fprintf(f.get(), "%.9g", double(v));
        }
        std::fputc('\n', f.get());
    }
    if (std::fflush(f.get()) != 0 || std::ferror(f.get())) throw IoError("cannot write " + path);
}

}  // namespace headscope::io
