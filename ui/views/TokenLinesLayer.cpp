#include "TokenLinesLayer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "HeadColors.h"
#include "LineRaster.h"
#include "TokenLinesView.h"

namespace headscope::ui {

TokenLinesLayer::TokenLinesLayer(QCustomPlot* plot, TokenLinesView* view) : QCPAbstractItem(plot), view_(view) {
    setClipToAxisRect(true);
    setSelectable(false);
}

void TokenLinesLayer::draw(QCPPainter* painter) {
    QCPAxisRect* rect = clipAxisRect();
    if (!rect) return;
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    const double x0 = x->coordToPixel(TokenLinesView::kQueryX + TokenLinesView::kGap),
                 x1 = x->coordToPixel(TokenLinesView::kKeyX - TokenLinesView::kGap);
    const double s = view_->options_.font_scale;
    const bool focus = view_->focus_index_ >= 0;
    painter->setRenderHint(QPainter::Antialiasing, true);
    const double strong_width = (focus ? 3.0 : 2.0) * std::max(1.0, s * 0.75);
    const double dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    const QRect area = rect->rect();
    const bool raster = painter->paintEngine() && painter->paintEngine()->type() == QPaintEngine::Raster &&
                        view_->lines_.size() > kImageFrom;
    const QPointF origin = raster ? QPointF(area.topLeft()) : QPointF();
    const double scale = raster ? dpr : 1.0;  // image pixels per logical pixel
    std::map<std::tuple<int, int, bool>, std::vector<QLineF>> groups;  // (opacity step, head, thin) -> lines
    for (const TokenLinesView::Line& line : view_->lines_) {
        if (focus && (view_->focus_side_ == 0 ? line.query : line.key) != view_->focus_index_) continue;
        const int opacity = int(std::lround(std::clamp(line.weight, 0.0f, 1.0f) * kOpacitySteps));  // opacity = weight
        const QPointF from(x0, y->coordToPixel(view_->rowY(0, line.query))), to(x1, y->coordToPixel(view_->rowY(1, line.key)));
        groups[{opacity, line.head, line.thin}].push_back(QLineF((from - origin) * scale, (to - origin) * scale));
    }
    QImage image;
    if (raster) {
        image = QImage(area.size() * dpr, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
    }
    for (const auto& [key, lines] : groups) {
        const auto [opacity, head, thin] = key;
        QColor colour = headColor(head);
        colour.setAlphaF(double(std::max(opacity, 1)) / kOpacitySteps);  // the faintest drawn, never invisible
        const double width = thin ? 0.5 : strong_width;
        if (raster) {
            if (thin) colour.setAlphaF(colour.alphaF() / 2);  // half a pixel: one at half the opacity
            blendLines(image, lines, colour, std::max(1, int(std::lround(width * dpr))));
            continue;
        }
        painter->setPen(QPen(colour, width, Qt::SolidLine, Qt::FlatCap));
        painter->drawLines(lines.data(), int(lines.size()));
    }
    if (raster) {
        image.setDevicePixelRatio(dpr);
        painter->drawImage(area.topLeft(), image);
    }
}

}  // namespace headscope::ui
