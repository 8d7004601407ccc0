#pragma once
// A plot or panel title typeset where it uses the sub/superscript notation (TypesetText:
// "W_QK,i" as W with the subscript QK,i), sized for layout by its typeset text; plain text
// otherwise, drawn by QCPTextElement. text() stays the notation (what fitting and tests read).

#include <qcustomplot.h>

namespace headscope::ui {

class TypesetTitle : public QCPTextElement {
    Q_OBJECT

public:
    using QCPTextElement::QCPTextElement;

    QSize minimumOuterSizeHint() const override;
    QSize maximumOuterSizeHint() const override;

protected:
    void draw(QCPPainter* painter) override;

private:
    QSizeF typesetSize() const;  // of text() in font(), remembered until either changes

    mutable QString sized_text_;
    mutable QFont sized_font_;
    mutable QSizeF size_;
};

}  // namespace headscope::ui
