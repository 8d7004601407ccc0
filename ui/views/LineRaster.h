#pragma once
// Antialiased straight lines blended into an image by our own loop (Xiaolin Wu's algorithm; a
// line `width` pixels wide is drawn as that many parallel one-pixel lines). Qt 6's raster engine
// hands every antialiased line of more than about a hundred spans to its fill threads and waits:
// 20,000 token lines took ten seconds that way, and take milliseconds here.

#include <QColor>
#include <QImage>
#include <QLineF>
#include <vector>

namespace headscope::ui {

// Blends `lines` (pixel coordinates of image) in `colour` (its alpha the opacity) over `image`,
// which must be QImage::Format_ARGB32_Premultiplied; parts outside the image are clipped.
void blendLines(QImage& image, const std::vector<QLineF>& lines, const QColor& colour, int width);

}  // namespace headscope::ui
