#include "TypesetItemText.h"

#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

TypesetItemText::TypesetItemText(QCustomPlot* plot) : QCPItemText(plot) {}

void TypesetItemText::draw(QCPPainter* painter) {
    if (!typeset::hasNotation(mText)) return QCPItemText::draw(painter);
    const QPointF pos = position->pixelPosition();
    QTransform transform = painter->transform();
    transform.translate(pos.x(), pos.y());
    if (!qFuzzyIsNull(mRotation)) transform.rotate(mRotation);
    const QFont font = mainFont();
    const QSizeF size = typeset::size(mText, font);
    const QRect text_rect(0, 0, int(std::ceil(size.width())), int(std::ceil(size.height())));
    QRect box = text_rect.adjusted(-mPadding.left(), -mPadding.top(), mPadding.right(), mPadding.bottom());
    const QPointF corner = getTextDrawPoint(QPointF(0, 0), box, mPositionAlignment);  // the transform translates
    box.moveTopLeft(corner.toPoint());
    const int pad = int(std::ceil(mainPen().widthF()));
    if (!transform.mapRect(box.adjusted(-pad, -pad, pad, pad)).intersects(painter->transform().mapRect(clipRect()))) return;
    painter->save();
    painter->setTransform(transform);
    if ((mainBrush().style() != Qt::NoBrush && mainBrush().color().alpha() != 0) ||
        (mainPen().style() != Qt::NoPen && mainPen().color().alpha() != 0)) {
        painter->setPen(mainPen());
        painter->setBrush(mainBrush());
        painter->drawRect(box);
    }
    painter->translate(box.left() + mPadding.left(), box.top() + mPadding.top());
    typeset::draw(painter, mText, font, mainColor(), mTextAlignment & Qt::AlignHorizontal_Mask);
    painter->restore();
}

}  // namespace headscope::ui
