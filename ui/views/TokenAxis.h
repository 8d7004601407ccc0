#pragma once
// Word labels on an axis of token positions, thinned so they never overlap: every step-th
// token is written (step chosen from the axis length in pixels and the font), always words,
// never bare numbers. Shared by the per-token views (score breakdown, query-key map).

#include <QFont>
#include <QStringList>
#include <qcustomplot.h>

namespace headscope::ui {

// Labels tokens 0..n-1 at positions 0..n-1 on axis, at most one per `min_pixels` of length
// (length: the axis' pixel length, or a guess when not laid out yet). Returns the step.
int setTokenTicks(QCPAxis* axis, const QStringList& labels, const QFont& font, int length_px);

// "token" with typographic quotes, elided to max_chars.
QString quoted(const std::string& token, int max_chars = 16);

}  // namespace headscope::ui
