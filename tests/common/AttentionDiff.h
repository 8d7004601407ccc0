#pragma once
// A forward's attention against a reference written by PyTorch or transformers.

#include <cmath>
#include <cstdint>

#include "io/Tensor.h"
#include "model/Forward.h"

namespace headscope::test {

// (L, h, n, n) reference attention vs the trace; max |difference| (infinity on NaN or shape mismatch).
inline double maxAttentionDiff(const model::Trace& trace, const io::Tensor& expected) {
    const auto L = expected.shape[0], h = expected.shape[1], n = expected.shape[2];
    if (L != static_cast<std::int64_t>(trace.layers.size()) || n != trace.n()) return INFINITY;
    double worst = 0;
    for (std::int64_t l = 0; l < L; ++l) {
        if (h != static_cast<std::int64_t>(trace.layers[l].attention.heads.size())) return INFINITY;
        for (std::int64_t i = 0; i < h; ++i)
            for (std::int64_t q = 0; q < n; ++q)
                for (std::int64_t k = 0; k < n; ++k) {
                    const float got = trace.layers[l].attention.heads[i].weights(q, k);
                    if (std::isnan(got)) return INFINITY;
                    worst = std::max(worst, double(std::abs(expected.data[((l * h + i) * n + q) * n + k] - got)));
                }
    }
    return worst;
}

}  // namespace headscope::test
