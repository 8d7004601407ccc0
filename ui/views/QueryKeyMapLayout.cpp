// QueryKeyMapView's layout on the plot (moved out of QueryKeyMapView.cpp, unchanged): the
// equal-scale frame around the points, and each word placed beside its point clear of the others.
#include "QueryKeyMapView.h"

#include <algorithm>

#include "LabelPlacement.h"
#include "TextFit.h"

namespace headscope::ui {

// "3 words hidden for lack of room: hover a point to name it", in the longest wording the
// plot's width holds; a picture for a file says "not labelled" and names no hover.
QString QueryKeyMapView::leftOutWords(int count) const {
    const QString words = QStringLiteral("%1 of %2 points").arg(count).arg(markers_.size());
    const QStringList variants =
        for_file_ ? QStringList{words + QStringLiteral(" not labelled, for lack of room"), words + QStringLiteral(" not labelled")}
                  : QStringList{words + QStringLiteral(" not labelled, for lack of room: hover a point to name it"),
                                words + QStringLiteral(" not labelled: hover a point"), words + QStringLiteral(" not labelled")};
    const double room = plot_->axisRect()->rect().width() - 16;  // the note's padding and margin
    const QString text = fit::longestThatFits(variants, left_out_->font(), room);
    return text.isEmpty() ? variants.back() : text;
}

// Both axes one scale (a unit is as long across as up), framing every point with room for
// labels, below the band the variance note and the legend take along the top and above
// bottom_band pixels.
void QueryKeyMapView::frame(double bottom_band) {
    const QRect r = plot_->axisRect()->rect();
    double top_band = 0;
    if (variance_ && !variance_->text().isEmpty()) top_band = variance_->bottomRight->pixelPosition().y() - r.top();
    if (plot_->legend->visible()) top_band = std::max(top_band, plot_->legend->outerRect().bottom() - double(r.top()));
    top_band = std::clamp(top_band + 4, 0.0, r.height() / 3.0);
    bottom_band = std::clamp(bottom_band, 0.0, r.height() / 4.0);
    const double w = std::max(50, r.width()), h = std::max(50.0, r.height() - top_band - bottom_band);
    double xs = std::max(x_data_.size(), 1e-9), ys = std::max(y_data_.size(), 1e-9);
    const double per_px = std::max(xs / w, ys / h) * 1.18;  // 18% room for labels
    plot_->xAxis->setRange(x_data_.center(), per_px * w, Qt::AlignCenter);
    const double bottom = y_data_.center() - per_px * (h / 2 + bottom_band);
    plot_->yAxis->setRange(bottom, bottom + per_px * (h + top_band + bottom_band));
}

int QueryKeyMapView::placeLabels() {
    fit::layOut(plot_);  // the axis rect as the new ranges' tick labels leave it
    const QRectF bounds = QRectF(plot_->axisRect()->rect()).adjusted(1, 1, -1, -1);
    const auto pixel = [&](const QPointF& at) {
        return QPointF(plot_->xAxis->coordToPixel(at.x()), plot_->yAxis->coordToPixel(at.y()));
    };
    const auto box = [](const QCPItemText* text) {
        return QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
    };
    std::vector<QRectF> obstacles;
    for (const Marker& m : markers_) {
        const QPointF p = pixel(m.at);
        obstacles.push_back(QRectF(p.x() - m.size / 2, p.y() - m.size / 2, m.size, m.size));
    }
    if (variance_ && !variance_->text().isEmpty()) obstacles.push_back(box(variance_));
    if (plot_->legend->visible()) obstacles.push_back(plot_->legend->outerRect());
    if (left_out_->visible()) obstacles.push_back(box(left_out_));
    std::vector<placement::Wanted> wanted;
    for (const PointLabel& label : point_labels_) {
        label.text->position->setCoords(label.at);  // to measure it (the size does not depend on where)
        wanted.push_back({pixel(label.at), box(label.text).size(), label.marker / 2 + 2, label.keep});
    }
    const std::vector<QRectF> placed = placement::placeLabels(wanted, obstacles, bounds);
    int left_out = 0;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        QCPItemText* text = point_labels_[i].text;
        text->setVisible(!placed[i].isEmpty());
        if (placed[i].isEmpty()) {
            ++left_out;
            continue;
        }
        // Anchored at its top left, on a whole pixel: drawn exactly where it was placed.
        text->position->setCoords(plot_->xAxis->pixelToCoord(placed[i].left()),
                                  plot_->yAxis->pixelToCoord(placed[i].top()));
    }
    return left_out;
}

}  // namespace headscope::ui
