#pragma once
// The numbers of a colour bar (issue 21: "colour-bar numbers overlap their bars"), one ticker
// for every view with a QCPColorScale. The numbers step by 1, 2, 2.5 or 5 times a power of ten,
// two lines of their font apart along the bar and at most about six steps, so they never
// overlap however short the bar is drawn; a bar too short for two such numbers shows its two
// ends (a line and a quarter apart at least); one too short for those, its upper end alone.
// The bar keeps half a line of its font above and below it (its minimum margins), so the
// numbers at its ends stay inside the plot; its width follows the widest number (QCustomPlot's
// margin for the axis' labels). Installed once per bar (install(), which also fits the bar's
// label to its length: ColourBarLabel), it reads the bar's length at each layout.

#include <qcustomplot.h>

namespace headscope::ui {

class ColourBarTicker : public QCPAxisTicker {
public:
    explicit ColourBarTicker(QCPColorScale* scale) : scale_(scale) {}

    // Gives scale this ticker (and no sub ticks).
    static void install(QCPColorScale* scale);

    // The numbers for a bar `length` pixels long showing range, labels `line` pixels along the
    // bar each (vertical bars: the font's height). Pure: the tests check it without a widget.
    static QVector<double> ticksFor(const QCPRange& range, double length, double line);

    void generate(const QCPRange& range, const QLocale& locale, QChar format_char, int precision, QVector<double>& ticks,
                  QVector<double>* sub_ticks, QVector<QString>* tick_labels) override;

private:
    QCPColorScale* scale_;
};

}  // namespace headscope::ui
