#include "TypesetTitle.h"

#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

QSizeF TypesetTitle::typesetSize() const {
    if (size_.isEmpty() || sized_text_ != mText || sized_font_ != mFont) {
        sized_text_ = mText;
        sized_font_ = mFont;
        size_ = typeset::size(mText, mFont);
    }
    return size_;
}

QSize TypesetTitle::minimumOuterSizeHint() const {
    if (!typeset::hasNotation(mText)) return QCPTextElement::minimumOuterSizeHint();
    const QSizeF size = typesetSize();
    return QSize(int(std::ceil(size.width())) + mMargins.left() + mMargins.right(),
                 int(std::ceil(size.height())) + mMargins.top() + mMargins.bottom());
}

QSize TypesetTitle::maximumOuterSizeHint() const {
    if (!typeset::hasNotation(mText)) return QCPTextElement::maximumOuterSizeHint();
    return QSize(QWIDGETSIZE_MAX, minimumOuterSizeHint().height());
}

void TypesetTitle::draw(QCPPainter* painter) {
    if (!typeset::hasNotation(mText)) {
        QCPTextElement::draw(painter);
        return;
    }
    // Placed in mRect as QCPTextElement places its text: by the text flags' alignment.
    const QSizeF size = typesetSize();
    const Qt::Alignment align = Qt::Alignment(mTextFlags) & (Qt::AlignHorizontal_Mask | Qt::AlignVertical_Mask);
    double x = mRect.center().x() + 0.5 - size.width() / 2;
    if (align & Qt::AlignLeft) x = mRect.left();
    if (align & Qt::AlignRight) x = mRect.right() + 1 - size.width();
    double y = mRect.center().y() + 0.5 - size.height() / 2;
    if (align & Qt::AlignTop) y = mRect.top();
    if (align & Qt::AlignBottom) y = mRect.bottom() + 1 - size.height();
    painter->save();
    painter->translate(x, y);
    typeset::draw(painter, mText, mSelected ? mSelectedFont : mFont, mSelected ? mSelectedTextColor : mTextColor,
                  align & Qt::AlignHorizontal_Mask);
    painter->restore();
    mTextBoundingRect = QRectF(x, y, size.width(), size.height()).toAlignedRect();
}

}  // namespace headscope::ui
