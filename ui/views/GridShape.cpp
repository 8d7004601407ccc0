#include "GridShape.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace headscope::ui {

int gridColumns(int heads, int n_q, int n_kv, const QSize& size, double font_scale, int bar_space) {
    // The column count whose heatmap cells come out largest for this widget's shape; among
    // counts within 8% of the best, the squarest grid (about ceil(sqrt(h)) columns).
    n_q = std::max(1, n_q);
    n_kv = std::max(1, n_kv);
    const bool shared_scale = bar_space > 0;
    const double label = 70 * font_scale;  // token labels and titles, roughly
    const int width = std::max(100, size.width() - bar_space);
    const int height = std::max(100, size.height() - int(50 * font_scale));
    std::vector<double> cell(static_cast<std::size_t>(heads) + 1, -1.0);
    double largest = -1;
    for (int columns = 1; columns <= heads; ++columns) {
        const int rows = (heads + columns - 1) / columns;
        if ((rows - 1) * columns >= heads) continue;  // would leave the last row empty
        // Shared bar: query words only left of the first column and key words only under the
        // last row (HeadGridView's small multiples), so the labels are paid for once.
        const double w = shared_scale ? (width - label) / columns - 16 : double(width) / columns - label - 70;
        const double h = shared_scale ? (height - label) / rows - 30 * font_scale : double(height) / rows - label;
        cell[static_cast<std::size_t>(columns)] = std::min(w / n_kv, h / n_q);
        largest = std::max(largest, cell[static_cast<std::size_t>(columns)]);
    }
    int best = 1, best_squareness = heads + 1;
    for (int columns = 1; columns <= heads; ++columns) {
        const double c = cell[static_cast<std::size_t>(columns)];
        if (c < 0 || c < largest - 0.08 * std::abs(largest)) continue;
        const int rows = (heads + columns - 1) / columns;
        const int squareness = std::abs(columns - rows);
        if (squareness < best_squareness) {
            best = columns;
            best_squareness = squareness;
        }
    }
    return best;
}

int thumbnailSide(int heads, int columns, const QSize& room, int title_h, int gap) {
    columns = std::clamp(columns, 1, std::max(1, heads));
    const int rows = (heads + columns - 1) / columns;
    const int w = room.width() / columns - gap, h = room.height() / rows - title_h - gap;
    return std::max(0, std::min(w, h));
}

int thumbnailColumns(int heads, const QSize& room, int title_h, int gap) {
    // One column of 8 heads beside a large head at full HD gives 8 px strips; the count whose
    // square is largest gives thumbnails (a strip wastes the side it cannot use).
    int best = 1, best_side = -1;
    for (int columns = 1; columns <= std::max(1, heads); ++columns) {
        const int rows = (heads + columns - 1) / columns;
        if ((rows - 1) * columns >= heads) continue;  // would leave the last row empty
        const int side = thumbnailSide(heads, columns, room, title_h, gap);
        if (side > best_side) best = columns, best_side = side;
    }
    return best;
}

}  // namespace headscope::ui
