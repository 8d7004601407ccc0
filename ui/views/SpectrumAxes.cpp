#include "SpectrumAxes.h"

#include <algorithm>
#include <cmath>

namespace headscope::ui {

QVector<double> BandLogTicker::createTickVector(double step, const QCPRange& range) {
    QVector<double> ticks = QCPAxisTickerLog::createTickVector(step, range);
    ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [this](double t) { return t < floor; }), ticks.end());
    if (band > 0) ticks.prepend(band);
    return ticks;
}

QString BandLogTicker::getTickLabel(double tick, const QLocale& locale, QChar format, int precision) {
    if (band > 0 && std::abs(tick / band - 1) < 1e-9) return QStringLiteral("0");
    return QCPAxisTickerLog::getTickLabel(tick, locale, format, precision);
}

void styleSpectrumAxes(QCPAxisRect* rect) {
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<BandLogTicker>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(0);
    y->setTicker(ticker);
    y->setSubTicks(false);
    y->setNumberFormat(QStringLiteral("eb"));  // 10^-3 written as a power
    y->setNumberPrecision(0);
    y->setLabel(QStringLiteral("singular value σᵢ (log)"));
    y->grid()->setSubGridVisible(false);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    auto fixed = QSharedPointer<QCPAxisTickerFixed>::create();
    fixed->setTickStep(1.0);
    fixed->setScaleStrategy(QCPAxisTickerFixed::ssNone);  // the step is set to the room (SpectrumView::fitTexts)
    x->setTicker(fixed);
    x->setSubTicks(false);
    x->setLabel(QStringLiteral("index i, largest first"));
    QCPAxis* top = rect->axis(QCPAxis::atTop);
    top->setVisible(true);
    top->setTicks(false);
    top->setTickLabels(false);
    top->setBasePen(Qt::NoPen);
}

}  // namespace headscope::ui
