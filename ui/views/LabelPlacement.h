#pragma once
// Where the words of a scatter plot go: each label beside its own point, clear of the other
// labels, of every point's marker and of the notes drawn on the plot, and inside the plot. A
// crowded plot leaves out the labels that find no free place rather than drawing words over
// words (a hovered point still names itself).

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <vector>

namespace headscope::ui::placement {

struct Wanted {
    QPointF point;       // the point named, in pixels
    QSizeF size;         // the label's box, padding included
    double clearance;    // pixels between the point and the box (the marker's radius and a gap)
    bool keep = false;   // shown even where every place overlaps something (the selected cell)
};

// The box of each label in pixels, in the order given; an empty box for a label left out.
// Labels are placed in order, so the ones that matter most come first. Each takes the first
// of twelve places around its point (above, below, right, left, the four corners, then above
// and below shifted half a box sideways), clearance pixels from it, that lies inside `bounds` and overlaps no box placed before it
// and no obstacle (markers, notes, legend). A label with no such place is left out, or if
// keep, takes the place inside bounds that overlaps least (with none inside, the first place
// moved inside). Places are on whole pixels, as text is drawn.
std::vector<QRectF> placeLabels(const std::vector<Wanted>& labels, const std::vector<QRectF>& obstacles,
                                const QRectF& bounds);

}  // namespace headscope::ui::placement
