#include "LabelPlacement.h"

#include <array>
#include <limits>

namespace headscope::ui::placement {
namespace {

// The boxes of size around point, c pixels from it: the sides first, then the corners, then
// above and below again, ending or starting at the point.
std::array<QRectF, 12> candidates(const QPointF& p, const QSizeF& size, double c) {
    const double w = size.width(), h = size.height();
    const double d = c * 0.7071;  // the corners: c from the point along the diagonal
    return {QRectF(p.x() - w / 2, p.y() - c - h, w, h),  // above
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
}

double overlapArea(const QRectF& a, const QRectF& b) {
    const QRectF both = a.intersected(b);
    return both.isEmpty() ? 0.0 : both.width() * both.height();
}

}  // namespace

std::vector<QRectF> placeLabels(const std::vector<Wanted>& labels, const std::vector<QRectF>& obstacles,
                                const QRectF& bounds) {
    std::vector<QRectF> placed(labels.size());
    std::vector<QRectF> taken = obstacles;  // grows by every label placed
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const Wanted& label = labels[i];
        if (label.size.isEmpty()) continue;
        QRectF best;
        double least = std::numeric_limits<double>::infinity();
        for (const QRectF& box : candidates(label.point, label.size, label.clearance)) {
            if (!bounds.contains(box)) continue;
            double overlap = 0;
            for (const QRectF& other : taken) overlap += overlapArea(box, other);
            if (overlap < least) least = overlap, best = box;
            if (overlap == 0) break;
        }
        if (best.isNull() || (least > 0 && !label.keep)) continue;
        placed[i] = best;
        taken.push_back(best);
    }
    return placed;
}

}  // namespace headscope::ui::placement
