#pragma once
// The spectrum view's axes: a logarithmic y axis whose ticks stop above the "= 0" band and
// add one tick labelled 0 at the band's centre, and an index axis 1..d_model below.

#include <qcustomplot.h>

namespace headscope::ui {

// Log ticks at or above floor only, plus one tick labelled "0" at band (when band > 0).
class BandLogTicker : public QCPAxisTickerLog {
public:
    double floor = 0, band = 0;

protected:
    QVector<double> createTickVector(double step, const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override;
};

// rect's axes as the spectrum draws them: y logarithmic with a BandLogTicker, x an index
// axis with a fixed step (set to the room later), a top axis that only carries the title.
void styleSpectrumAxes(QCPAxisRect* rect);

}  // namespace headscope::ui
