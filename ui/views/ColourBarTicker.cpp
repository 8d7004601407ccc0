#include "ColourBarTicker.h"

#include "ColourBarLabel.h"

#include <algorithm>
#include <cmath>

namespace headscope::ui {
namespace {

constexpr double kApart = 1.25;    // two numbers' centres at least this many label lengths apart
constexpr double kSpacing = 2.0;   // stepped numbers: a line of bar between two (they read as a scale)
constexpr double kMostSteps = 6;   // and at most about this many steps over the range

// The smallest of 1, 2, 2.5, 5 (times a power of ten) at least x (x > 0), as digits x 10^exponent
// (2.5 as 25 x 10^(exponent - 1)), so its multiples print as they read ("0.3", not 0.30000000000000004).
struct Step {
    int digits;
    int exponent;
    double times(double k) const {
        const double n = k * digits;
        return exponent >= 0 ? n * std::pow(10.0, exponent) : n / std::pow(10.0, -exponent);
    }
};
Step stepAtLeast(double x) {
    const int e = int(std::floor(std::log10(x)));
    const double power = std::pow(10.0, e);
    if (power >= x * (1 - 1e-9)) return {1, e};
    if (2 * power >= x * (1 - 1e-9)) return {2, e};
    if (2.5 * power >= x * (1 - 1e-9)) return {25, e - 1};
    if (5 * power >= x * (1 - 1e-9)) return {5, e};
    return {1, e + 1};
}

bool vertical(const QCPColorScale* scale) {
    return scale->type() == QCPAxis::atLeft || scale->type() == QCPAxis::atRight;
}

}  // namespace

void ColourBarTicker::install(QCPColorScale* scale) {
    scale->axis()->setTicker(QSharedPointer<ColourBarTicker>::create(scale));
    scale->axis()->setSubTicks(false);
    ColourBarLabel::install(scale);
}

QVector<double> ColourBarTicker::ticksFor(const QCPRange& range, double length, double line) {
    const double size = range.size();
    if (!(size > 0) || !std::isfinite(size) || !(length > 0)) return {range.upper};
    // Multiples of a step whose pixels keep the numbers apart, where two of them fit ...
    const Step step = stepAtLeast(std::max(size * kSpacing * line / length, size / kMostSteps));
    const double unit = step.times(1), eps = 1e-9 * unit;
    QVector<double> ticks;
    for (double k = std::ceil((range.lower - eps) / unit); step.times(k) <= range.upper + eps; k += 1) ticks << step.times(k) + 0.0;
    if (ticks.size() >= 2) return ticks;
    // ... else the bar's two ends, or its upper end alone.
    if (length >= kApart * line) return {range.lower, range.upper};
    return {range.upper};
}

void ColourBarTicker::generate(const QCPRange& range, const QLocale& locale, QChar format_char, int precision,
                               QVector<double>& ticks, QVector<double>* sub_ticks, QVector<QString>* tick_labels) {
    Q_UNUSED(format_char)
    Q_UNUSED(precision)
    QCPAxis* axis = scale_->axis();
    const QFontMetricsF metrics(axis->tickLabelFont());
    // Half a line above and below the bar: its end numbers are centred on its ends.
    const int half = int(std::ceil(metrics.height() / 2)) + 1;
    const QMargins kept = scale_->minimumMargins();
    const QMargins wanted = vertical(scale_) ? QMargins(kept.left(), half, kept.right(), half)
                                             : QMargins(half, kept.top(), half, kept.bottom());
    if (kept != wanted) scale_->setMinimumMargins(wanted);
    const QRect bar = axis->axisRect()->rect();
    const double length = vertical(scale_) ? bar.height() : bar.width();
    // Along a horizontal bar a number's length is its width: the widest of the ends' (and zero's).
    double line = metrics.height();
    if (!vertical(scale_))
        for (const double v : {range.lower, range.upper})
            line = std::max(line, metrics.horizontalAdvance(locale.toString(v, 'g', 3)));
    ticks = ticksFor(range, length, line);
    const bool stepped = ticks.size() > 2 || (ticks.size() == 2 && (ticks[0] != range.lower || ticks[1] != range.upper));
    if (sub_ticks) sub_ticks->clear();
    if (tick_labels) {
        tick_labels->clear();
        // Steps print as short as they are ("0.25"); the ends with three significant digits.
        for (const double v : ticks) tick_labels->append(locale.toString(v, 'g', stepped ? 6 : 3));
    }
}

}  // namespace headscope::ui
