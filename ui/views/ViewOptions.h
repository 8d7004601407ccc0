#pragma once
// How the attention views draw an Analysis. Plain data, shared by the GUI, the CLI's
// export and the tests.

namespace headscope::ui {

struct ViewOptions {
    bool show_logits = false;   // false: softmax weights (viridis); true: logits (diverging)
    bool shared_scale = true;   // one colour bar for all heads; false: one per head
    double font_scale = 1.0;    // multiplies every font (1.5-2 for a classroom projector)
    bool cell_numbers = false;  // head grid: each cell's value printed in it when the cells are large enough
    bool token_positions = false;  // token labels carry their position: "0 The", "1 animal" (padded keys are typed as positions)

    bool operator==(const ViewOptions&) const = default;
};

}  // namespace headscope::ui
