#include "CellColorMap.h"

#include <cmath>

namespace headscope::ui {

CellColorMap::CellColorMap(QCPAxis* key_axis, QCPAxis* value_axis) : QCPColorMap(key_axis, value_axis) {
    setInterpolate(false);
}

void CellColorMap::draw(QCPPainter* painter) {
    const QCPColorMapData* d = data();
    const bool vector = painter->modes().testFlag(QCPPainter::pmVectorized);
    if (vector && d->keySize() <= kMaxVectorCells && d->valueSize() <= kMaxVectorCells && d->keySize() > 0) {
        drawCells(painter);
        return;
    }
    if (vector) painter->setRenderHint(QPainter::SmoothPixmapTransform, false);  // crisp cells
    QCPColorMap::draw(painter);
}

void CellColorMap::drawCells(QCPPainter* painter) {
    QCPColorMapData* d = data();  // cell() is not const in QCustomPlot 2.1
    const int nk = d->keySize(), nv = d->valueSize();
    // Cell centres span the data ranges; a cell is one step wide (1 when there is one cell).
    const double dk = nk > 1 ? d->keyRange().size() / (nk - 1) : 1.0;
    const double dv = nv > 1 ? d->valueRange().size() / (nv - 1) : 1.0;
    QCPColorGradient g = gradient();
    painter->save();
    painter->setPen(Qt::NoPen);
    painter->setRenderHint(QPainter::Antialiasing, false);
    QRgb rgb = 0;
    for (int k = 0; k < nk; ++k) {
        for (int v = 0; v < nv; ++v) {
            double key = 0, value = 0;
            d->cellToCoord(k, v, &key, &value);
            const QPointF a = coordsToPixels(key - dk / 2, value - dv / 2);
            const QPointF b = coordsToPixels(key + dk / 2, value + dv / 2);
            const double cell = d->cell(k, v);
            g.colorize(&cell, dataRange(), &rgb, 1, 1, dataScaleType() == QCPAxis::stLogarithmic);
            painter->setBrush(QColor::fromRgba(rgb));
            painter->drawRect(QRectF(a, b).normalized());
        }
    }
    painter->restore();
}

}  // namespace headscope::ui
