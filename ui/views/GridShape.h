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

// Thumbnails (the heads beside the selected head drawn large): the column count whose
// thumbnails come out largest and nearest square in `room` (the grid's size less its titles and
// colour bar), each row also paying `title_h` pixels for its head title and `gap` between
// thumbnails. Never leaves the last row empty.
int thumbnailColumns(int heads, const QSize& room, int title_h, int gap);
// The side of the square that fits each thumbnail with `columns` columns (for HeadsTab's room).
int thumbnailSide(int heads, int columns, const QSize& room, int title_h, int gap);
// Thumbnails this small and larger read at a glance (the Heads tab gives the grid room for it).
constexpr int kMinThumbnail = 48;

}  // namespace headscope::ui
