#pragma once
// What the matrix-panel views (circuits, fused projections, their product) share: their point
// sizes; and a count as every view and the status panel write it, with thousands separators
// ("1,179,648" parameters).

#include <QLocale>
#include <QString>

namespace headscope::ui {

inline constexpr double kPanelTitlePt = 12, kPanelLabelPt = 11, kPanelTickPt = 9;

inline QString groupedCount(long long n) { return QLocale(QLocale::English).toString(qlonglong(n)); }

}  // namespace headscope::ui
