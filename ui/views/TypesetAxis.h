#pragma once
// An axis whose label is typeset (TypesetText: "W_i^Q" with its sub- and superscript) where it
// uses the notation; QCPAxis draws everything else, and the margin counts the typeset label's
// height. A label without the notation is QCPAxis's own.
// Use: TypesetAxis::adopt(rect) right after making an axis rect, before anything is plotted on
// it: its four axes become TypesetAxes, visible, on their layers, as before.

#include <qcustomplot.h>

namespace headscope::ui {

class TypesetAxis : public QCPAxis {
    Q_OBJECT

public:
    TypesetAxis(QCPAxisRect* rect, AxisType type);

    // Replaces each plain QCPAxis of rect by a TypesetAxis with the same visibility, layers,
    // grid and label; the plot's xAxis/yAxis/xAxis2/yAxis2 follow when rect is its first.
    // Call before plottables use rect's axes (removing an axis detaches them).
    static void adopt(QCPAxisRect* rect);
    // The same for a colour bar's axis ("logit / √d_k"): call right after making the scale.
    static void adopt(QCPColorScale* scale);

protected:
    int calculateMargin() override;
    void draw(QCPPainter* painter) override;

private:
    QSizeF labelSize() const;  // of the typeset label in its font, remembered until either changes

    mutable QString sized_text_;
    mutable QFont sized_font_;
    mutable QSizeF size_;
};

}  // namespace headscope::ui
