#pragma once
// How many columns the head grid uses: a pure function of the head count, the token counts
// and the space, so the choice can be tested without a widget.

#include <QSize>

namespace headscope::ui {

// Pixels the shared colour bar and its labels take at the grid's right edge.
constexpr int kBarSpace = 110;

// The column count whose heatmap cells come out largest in `size` (bar_space pixels go to
// a shared colour bar; 0 means one bar per head); among counts within 8% of the best, the
// squarest grid. Never leaves the last row empty.
int gridColumns(int heads, int n_q, int n_kv, const QSize& size, double font_scale, int bar_space);

}  // namespace headscope::ui
