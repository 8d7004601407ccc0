#pragma once
// Sizes and panel indices shared by SpectrumView's two source files (internal to the view).

#include <QString>

namespace headscope::ui::spectrum_style {

constexpr double kTitlePt = 13, kAxisPt = 11, kTickPt = 10, kNotePt = 9.5;
constexpr int kQK = 0, kOV = 1;
// The band's centre sits this factor below the lowest value above the tolerance (log scale);
// the axis ends another factor below it, and no tick is drawn between.
constexpr double kBandGap = 12, kBandHalf = 3;

inline QString formatValue(double v) {
    if (v == 0) return QStringLiteral("0 (exact: past the factor width)");
    return QString::number(v, 'g', 4);
}

}  // namespace headscope::ui::spectrum_style
