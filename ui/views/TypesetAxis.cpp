#include "TypesetAxis.h"

#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

TypesetAxis::TypesetAxis(QCPAxisRect* rect, AxisType type) : QCPAxis(rect, type) {}

void TypesetAxis::adopt(QCPAxisRect* rect) {
    QCustomPlot* plot = rect->parentPlot();
    const bool first = plot && plot->axisRectCount() > 0 && plot->axisRect(0) == rect;
    const QList<QCPAxis*> drag = rect->rangeDragAxes(Qt::Horizontal) + rect->rangeDragAxes(Qt::Vertical);
    const QList<QCPAxis*> zoom = rect->rangeZoomAxes(Qt::Horizontal) + rect->rangeZoomAxes(Qt::Vertical);
    QList<QCPAxis*> new_drag, new_zoom;
    for (const AxisType type : {atBottom, atLeft, atTop, atRight}) {
        const QList<QCPAxis*> old_axes = rect->axes(type);
        for (QCPAxis* old : old_axes) {
            if (qobject_cast<TypesetAxis*>(old)) continue;
            auto* axis = new TypesetAxis(rect, type);
            axis->setVisible(old->visible());
            axis->setLayer(old->layer());
            axis->setLabel(old->label());
            axis->setPadding(old->padding());
            axis->setTicks(old->ticks());
            axis->setTickLabels(old->tickLabels());
            axis->grid()->setLayer(old->grid()->layer());
            axis->grid()->setVisible(old->grid()->visible());
            axis->grid()->setZeroLinePen(old->grid()->zeroLinePen());
            const bool dragged = drag.contains(old), zoomed = zoom.contains(old);
            if (first) {  // the plot's convenience pointers are set again by addAxis when unset
                if (plot->xAxis == old) plot->xAxis = nullptr;
                if (plot->yAxis == old) plot->yAxis = nullptr;
                if (plot->xAxis2 == old) plot->xAxis2 = nullptr;
                if (plot->yAxis2 == old) plot->yAxis2 = nullptr;
            }
            rect->removeAxis(old);
            rect->addAxis(type, axis);
            if (dragged) new_drag << axis;
            if (zoomed) new_zoom << axis;
        }
    }
    if (!new_drag.isEmpty()) rect->setRangeDragAxes(new_drag);
    if (!new_zoom.isEmpty()) rect->setRangeZoomAxes(new_zoom);
}

void TypesetAxis::adopt(QCPColorScale* scale) {
    QCPAxis* old = scale->axis();
    if (!old || qobject_cast<TypesetAxis*>(old)) return;
    const AxisType type = scale->type();
    const QCPRange range = scale->dataRange();
    const QString label = old->label();
    adopt(old->axisRect());  // the scale's own axis rect
    // The scale's guarded pointer to its axis is null now: setting its type picks the new one.
    scale->setType(type == atRight ? atLeft : atRight);
    scale->setType(type);
    scale->axis()->setRange(range);
    scale->axis()->setLabel(label);
}

QSizeF TypesetAxis::labelSize() const {
    const QFont font = getLabelFont();
    if (size_.isEmpty() || sized_text_ != mLabel || sized_font_ != font) {
        sized_text_ = mLabel;
        sized_font_ = font;
        size_ = typeset::size(mLabel, font);
    }
    return size_;
}

int TypesetAxis::calculateMargin() {
    if (!visible() || !typeset::hasNotation(mLabel)) return QCPAxis::calculateMargin();
    // QCPAxis's margin without the label (it caches that; setLabel clears the cache), plus the
    // typeset label's height and its padding, as QCPAxis counts a plain label.
    const QString label = mLabel;
    mLabel.clear();
    const int without = QCPAxis::calculateMargin();
    mLabel = label;
    return without + int(std::ceil(labelSize().height())) + labelPadding();
}

void TypesetAxis::draw(QCPPainter* painter) {
    if (!typeset::hasNotation(mLabel)) {
        QCPAxis::draw(painter);
        return;
    }
    // The line, ticks and numbers as QCPAxis draws them; the label where it would put its own.
    const QString label = mLabel;
    mLabel.clear();
    QCPAxis::draw(painter);
    const int numbers = mAxisPainter->size();  // axis line to the label: ticks, numbers, padding
    mLabel = label;
    const QSizeF size = labelSize();
    const QRect r = axisRect()->rect();
    const double gap = offset() + numbers + labelPadding();
    painter->save();
    switch (axisType()) {
        case atTop:
            painter->translate(r.center().x() + 0.5 - size.width() / 2, r.top() - gap - size.height());
            break;
        case atBottom:
            painter->translate(r.center().x() + 0.5 - size.width() / 2, r.bottom() + 1 + gap);
            break;
        case atLeft:  // read bottom to top
            painter->translate(r.left() - gap - size.height(), r.center().y() + 0.5 + size.width() / 2);
            painter->rotate(-90);
            break;
        case atRight:  // read top to bottom
            painter->translate(r.right() + 1 + gap + size.height(), r.center().y() + 0.5 - size.width() / 2);
            painter->rotate(90);
            break;
    }
    typeset::draw(painter, label, getLabelFont(), getLabelColor());
    painter->restore();
}

}  // namespace headscope::ui
