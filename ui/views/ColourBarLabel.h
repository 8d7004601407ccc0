#pragma once
// The label along a colour bar (issue 21: "attention weight (softma" cut at the plot's edge
// beside a short bar). The views set the whole label ("attention weight (softmax)\n(grey =
// masked)"); after every layout, when the bar's length is known, the label shown is shortened
// to it: a parenthesis goes first, then the part after the last " · ", then words from the
// end; a line whose first word does not fit, or a parenthesised note that does not fit whole,
// is left out. A bar that short still carries its numbers. Installed once per bar
// (ColourBarTicker::install), it keeps the whole label for when the bar grows again.

#include <qcustomplot.h>

namespace headscope::ui {

class ColourBarLabel : public QObject {
public:
    // Shortens scale's label after each layout of its plot from now on.
    static void install(QCPColorScale* scale);

    // The lines of label that fit `length` pixels in metrics (pure: tested without a widget).
    static QString fitted(const QString& label, const QFontMetricsF& metrics, double length);

private:
    explicit ColourBarLabel(QCPColorScale* scale);
    void fit();

    QCPColorScale* scale_;
    QString whole_;  // as the view set it
    QString shown_;  // as fit() shortened it (a label that differs was set anew by the view)
};

}  // namespace headscope::ui
