#pragma once
// The analysis the head-grid tests draw (test_head_grid, test_head_grid_labels): the demo sentence, heads, mask, seed.
#include <cstdint>
#include <memory>

#include "Analysis.h"

namespace headscope::ui::testing {

inline std::shared_ptr<const Analysis> gridAnalysis(int heads, MaskKind mask = MaskKind::None, std::uint64_t seed = 0) {
    Config config;
    config.heads = heads;
    config.mask = mask;
    config.seed = seed;
    return std::make_shared<const Analysis>(analyze(config, false));
}

}  // namespace headscope::ui::testing
