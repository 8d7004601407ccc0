#include "TypesetLegendItem.h"

#include <algorithm>

#include "TypesetText.h"

namespace headscope::ui {

TypesetLegendItem::TypesetLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable)
    : QCPPlottableLegendItem(legend, plottable) {}

void TypesetLegendItem::draw(QCPPainter* painter) {
    if (!mPlottable || !typeset::hasNotation(mPlottable->name())) return QCPPlottableLegendItem::draw(painter);
    // The icon (and its border) as QCPPlottableLegendItem draws it, with the name left out.
    const QString name = mPlottable->name();
    mPlottable->setName(QString());
    QCPPlottableLegendItem::draw(painter);
    mPlottable->setName(name);
    // The name typeset beside the icon, centred on the icon's height.
    const QSize icon = mParentLegend->iconSize();
    const QFont font = getFont();
    const QSizeF size = typeset::size(name, font);
    const double height = std::max(size.height(), double(icon.height()));
    painter->save();
    painter->translate(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y() + (height - size.height()) / 2);
    typeset::draw(painter, name, font, getTextColor(), Qt::AlignLeft);
    painter->restore();
}

}  // namespace headscope::ui
