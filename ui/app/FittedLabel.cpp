#include "FittedLabel.h"

#include <QEvent>
#include <QFontMetrics>

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
    return QSize(1, fontMetrics().height() + 2 * margin());
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
