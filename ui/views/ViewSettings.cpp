#include "ViewSettings.h"

namespace headscope::ui {

ViewOptions applyViewSettings(ViewOptions options, const io::ViewSettings& s) {
    if (s.show_logits) options.show_logits = *s.show_logits;
    if (s.shared_scale) options.shared_scale = *s.shared_scale;
    if (s.cell_numbers) options.cell_numbers = *s.cell_numbers;
    if (s.token_positions) options.token_positions = *s.token_positions;
    if (s.font_scale) options.font_scale = *s.font_scale;
    return options;
}

io::ViewSettings viewSettings(const ViewOptions& o) {
    io::ViewSettings s;
    s.show_logits = o.show_logits;
    s.shared_scale = o.shared_scale;
    s.cell_numbers = o.cell_numbers;
    s.token_positions = o.token_positions;
    s.font_scale = o.font_scale;
    return s;
}

}  // namespace headscope::ui
