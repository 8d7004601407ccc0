#include "LineRaster.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace headscope::ui {
namespace {

// One pixel at (x, y) covered by `coverage` (0..1) of a colour, premultiplied, in 1/256 steps.
struct Blender {
    QRgb* bits;                 // the image's pixels, row by row
    int stride, width, height;  // pixels per row in memory, and the image's size
    int r, g, b, a;             // premultiplied source, 0..256
    void plot(int x, int y, double coverage) const {
        if (x < 0 || y < 0 || x >= width || y >= height) return;
        const int c = int(coverage * 256);
        if (c <= 0) return;
        QRgb* pixel = bits + std::ptrdiff_t(y) * stride + x;
        const int keep = 256 - ((a * c) >> 8);  // what of the pixel shows through
        const auto mix = [&](int dst, int src) { return std::min(255, ((src * c) >> 8) + ((dst * keep) >> 8)); };
        *pixel = qRgba(mix(qRed(*pixel), r), mix(qGreen(*pixel), g), mix(qBlue(*pixel), b), mix(qAlpha(*pixel), a));
    }
};

// Xiaolin Wu's line from (x0, y0) to (x1, y1).
void wuLine(const Blender& out, double x0, double y0, double x1, double y1) {
    const bool steep = std::abs(y1 - y0) > std::abs(x1 - x0);
    if (steep) std::swap(x0, y0), std::swap(x1, y1);
    if (x0 > x1) std::swap(x0, x1), std::swap(y0, y1);
    const double dx = x1 - x0, gradient = dx == 0 ? 1 : (y1 - y0) / dx;
    const auto plot = [&](int major, int minor, double coverage) {
        steep ? out.plot(minor, major, coverage) : out.plot(major, minor, coverage);
    };
    const int first = int(std::lround(x0)), last = int(std::lround(x1));
    double y = y0 + gradient * (first - x0);
    for (int x = first; x <= last; ++x, y += gradient) {
        const double floor = std::floor(y), fraction = y - floor;
        plot(x, int(floor), 1 - fraction);
        plot(x, int(floor) + 1, fraction);
    }
}

}  // namespace

void blendLines(QImage& image, const std::vector<QLineF>& lines, const QColor& colour, int width) {
    const double alpha = colour.alphaF();
    const auto premultiplied = [alpha](double channel) { return int(std::lround(channel * alpha * 255)); };
    if (image.isNull()) return;
    const Blender out{reinterpret_cast<QRgb*>(image.bits()), int(image.bytesPerLine() / 4), image.width(), image.height(),
                      premultiplied(colour.redF()), premultiplied(colour.greenF()), premultiplied(colour.blueF()),
                      int(std::lround(alpha * 256))};
    for (const QLineF& line : lines) {
        // Parallel one-pixel lines, offset across the line's direction, centred on it.
        const QPointF d = line.p2() - line.p1();
        const double length = std::hypot(d.x(), d.y());
        const QPointF normal = length > 0 ? QPointF(-d.y() / length, d.x() / length) : QPointF(0, 1);
        for (int i = 0; i < std::max(1, width); ++i) {
            const QPointF shift = normal * (i - (std::max(1, width) - 1) / 2.0);
            wuLine(out, line.x1() + shift.x(), line.y1() + shift.y(), line.x2() + shift.x(), line.y2() + shift.y());
        }
    }
}

}  // namespace headscope::ui
