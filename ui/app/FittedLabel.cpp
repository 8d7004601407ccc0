#include "FittedLabel.h"

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>
#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

FittedLabel::FittedLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void FittedLabel::setVariants(const QStringList& variants) {
    if (variants == variants_) return;
    variants_ = variants;
    fit();
}

void FittedLabel::setExplanation(const QString& explanation) {
    explanation_ = explanation;
    fit();
}

QSize FittedLabel::minimumSizeHint() const {
    // Tall enough for a line with a subscript and a superscript.
    const int line = std::max(fontMetrics().height(), int(std::ceil(typeset::size(QStringLiteral("W_i^Q"), font()).height())));
    return QSize(1, line + 2 * margin());
}

void FittedLabel::paintEvent(QPaintEvent* event) {
    if (!typeset::hasNotation(text())) return QLabel::paintEvent(event);
    // As QLabel places its text: within the contents less the margin, by alignment().
    QPainter painter(this);
    const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    const QSizeF size = typeset::size(text(), font());
    double x = room.left();
    if (alignment() & Qt::AlignRight) x = room.right() + 1 - size.width();
    if (alignment() & Qt::AlignHCenter) x = room.center().x() + 0.5 - size.width() / 2;
    double y = room.center().y() + 0.5 - size.height() / 2;
    if (alignment() & Qt::AlignTop) y = room.top();
    if (alignment() & Qt::AlignBottom) y = room.bottom() + 1 - size.height();
    painter.setClipRect(room);
    painter.translate(x, y);
    typeset::draw(&painter, text(), font(), palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, foregroundRole()),
                  Qt::AlignLeft);
}

void FittedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    fit();
}

void FittedLabel::changeEvent(QEvent* event) {
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange) fit();
}

void FittedLabel::fit() {
    const QFontMetrics metrics(font());
    const int room = contentsRect().width() - 2 * margin() - 2;
    QString shown;
    for (const QString& variant : variants_) {
        if (metrics.horizontalAdvance(variant) <= room) {
            shown = variant;
            break;
        }
    }
    if (shown.isNull() && !variants_.isEmpty()) shown = metrics.elidedText(variants_.back(), Qt::ElideRight, room);
    if (shown != text()) setText(shown);
    const bool whole = variants_.isEmpty() || shown == variants_.front();
    setToolTip(whole ? explanation_ : explanation_ + QStringLiteral("\n\n") + variants_.front());
}

}  // namespace headscope::ui
