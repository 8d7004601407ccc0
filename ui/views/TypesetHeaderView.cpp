#include "TypesetHeaderView.h"

#include <QPainter>
#include <QStyleOptionHeader>
#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

TypesetHeaderView::TypesetHeaderView(Qt::Orientation orientation, QWidget* parent) : QHeaderView(orientation, parent) {}

QString TypesetHeaderView::sectionText(int logical_index) const {
    return model() ? model()->headerData(logical_index, orientation(), Qt::DisplayRole).toString() : QString();
}

void TypesetHeaderView::paintSection(QPainter* painter, const QRect& rect, int logical_index) const {
    const QString text = sectionText(logical_index);
    if (!typeset::hasNotation(text)) return QHeaderView::paintSection(painter, rect, logical_index);
    // The section as the style draws it, without its text; then the text typeset, centred.
    QStyleOptionHeader option;
    initStyleOption(&option);
    option.rect = rect;
    option.section = logical_index;
    option.text.clear();
    painter->save();
    style()->drawControl(QStyle::CE_Header, &option, painter, this);
    const QSizeF size = typeset::size(text, font());
    painter->setClipRect(rect);
    painter->translate(rect.center().x() + 0.5 - size.width() / 2, rect.center().y() + 0.5 - size.height() / 2);
    typeset::draw(painter, text, font(), palette().color(QPalette::ButtonText));
    painter->restore();
}

QSize TypesetHeaderView::sectionSizeFromContents(int logical_index) const {
    QSize size = QHeaderView::sectionSizeFromContents(logical_index);
    const QString text = sectionText(logical_index);
    if (!typeset::hasNotation(text)) return size;
    // As tall as the typeset lines need (a subscript makes a line taller than the font's).
    const int lines = int(text.count(QLatin1Char('\n'))) + 1;
    const int raw = fontMetrics().height() * lines;
    const int typeset_height = int(std::ceil(typeset::size(text, font()).height()));
    size.setHeight(size.height() + std::max(0, typeset_height - raw));
    return size;
}

}  // namespace headscope::ui
