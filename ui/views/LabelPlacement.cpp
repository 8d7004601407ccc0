#include "LabelPlacement.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace headscope::ui::placement {
namespace {

// The boxes of size around point, c pixels from it: the sides first, then the corners, then
// above and below again, ending or starting at the point. Corners land on whole pixels, as
// text is drawn.
std::array<QRectF, 12> candidates(const QPointF& p, const QSizeF& size, double c) {
    const double w = size.width(), h = size.height();
    const double d = c * 0.7071;  // the corners: c from the point along the diagonal
    std::array<QRectF, 12> boxes{
        QRectF(p.x() - w / 2, p.y() - c - h, w, h),  // above
        QRectF(p.x() - w / 2, p.y() + c, w, h),      // below
        QRectF(p.x() + c, p.y() - h / 2, w, h),      // right
        QRectF(p.x() - c - w, p.y() - h / 2, w, h),  // left
        QRectF(p.x() + d, p.y() - d - h, w, h),      // above right
        QRectF(p.x() - d - w, p.y() - d - h, w, h),  // above left
        QRectF(p.x() + d, p.y() + d, w, h),          // below right
        QRectF(p.x() - d - w, p.y() + d, w, h),      // below left
        QRectF(p.x() - w, p.y() - c - h, w, h),      // above, ending over the point
        QRectF(p.x(), p.y() - c - h, w, h),          // above, starting over it
        QRectF(p.x() - w, p.y() + c, w, h),          // below, ending under it
        QRectF(p.x(), p.y() + c, w, h)};             // below, starting under it
    for (QRectF& box : boxes) box.moveTopLeft(QPointF(std::round(box.left()), std::round(box.top())));
    return boxes;
}

double overlapArea(const QRectF& a, const QRectF& b) {
    const QRectF both = a.intersected(b);
    return both.isEmpty() ? 0.0 : both.width() * both.height();
}

// The boxes taken so far, bucketed by the square cells of the plot they touch, so that a
// candidate is compared with its neighbours only (thousands of points stay fast).
class TakenBoxes {
  public:
    explicit TakenBoxes(double cell) : cell_(std::max(cell, 8.0)) {}

    void add(const QRectF& box) {
        const int index = static_cast<int>(boxes_.size());
        boxes_.push_back(box);
        forCells(box, [&](long long key) { cells_[key].push_back(index); });
    }

    // The area of box covered by the boxes taken, counted until it reaches stop.
    double overlap(const QRectF& box, double stop) {
        ++visit_;
        double area = 0;
        forCells(box, [&](long long key) {
            const auto found = cells_.find(key);
            if (found == cells_.end()) return;
            for (int index : found->second) {
                if (area >= stop || seen_[index] == visit_) continue;
                seen_[index] = visit_;  // a box in several cells counts once
                area += overlapArea(box, boxes_[std::size_t(index)]);
            }
        });
        return area;
    }

  private:
    template <typename F>
    void forCells(const QRectF& box, F&& f) {
        const long long x0 = std::llround(std::floor(box.left() / cell_)), x1 = std::llround(std::floor(box.right() / cell_));
        const long long y0 = std::llround(std::floor(box.top() / cell_)), y1 = std::llround(std::floor(box.bottom() / cell_));
        seen_.resize(boxes_.size(), 0);
        for (long long y = y0; y <= y1; ++y)
            for (long long x = x0; x <= x1; ++x) f((y << 32) ^ (x & 0xffffffffLL));
    }

    double cell_;
    std::vector<QRectF> boxes_;
    std::unordered_map<long long, std::vector<int>> cells_;
    std::vector<unsigned> seen_;
    unsigned visit_ = 0;
};

}  // namespace

std::vector<QRectF> placeLabels(const std::vector<Wanted>& labels, const std::vector<QRectF>& obstacles,
                                const QRectF& bounds) {
    double cell = 0;  // about a label's size
    for (const Wanted& label : labels) cell = std::max(cell, label.size.height() * 2);
    TakenBoxes taken(cell > 0 ? cell : 32);
    for (const QRectF& box : obstacles) taken.add(box);
    std::vector<QRectF> placed(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const Wanted& label = labels[i];
        if (label.size.isEmpty()) continue;
        const auto boxes = candidates(label.point, label.size, label.clearance);
        QRectF best;
        double least = std::numeric_limits<double>::infinity();
        for (const QRectF& box : boxes) {
            if (!bounds.contains(box)) continue;
            // A label that is not kept only wants a free place: any overlap rules one out.
            const double overlap = taken.overlap(box, label.keep ? least : 1e-9);
            if (overlap < least) least = overlap, best = box;
            if (overlap == 0) break;
        }
        if (best.isNull() && label.keep) {  // no place inside: the first, pushed inside
            best = boxes[0];
            best.moveLeft(std::clamp(best.left(), bounds.left(), std::max(bounds.left(), bounds.right() - best.width())));
            best.moveTop(std::clamp(best.top(), bounds.top(), std::max(bounds.top(), bounds.bottom() - best.height())));
            least = 1;
        }
        if (best.isNull() || (least > 0 && !label.keep)) continue;
        placed[i] = best;
        taken.add(best);
    }
    return placed;
}

}  // namespace headscope::ui::placement
