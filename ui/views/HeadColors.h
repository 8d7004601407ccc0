#pragma once
// One colour per head, the same in every view (spectra, rank table, token lines): Okabe &
// Ito's colour-blind-safe palette (yellow left out: too pale on white), then golden-ratio hues.

#include <QColor>

namespace headscope::ui {

QColor headColor(int head);

// WCAG 2 contrast ratio of two colours, 1 (the same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);

// The head's colour for text on background, lightened or darkened until the two stand apart
// (contrast 3:1): head 6's black on presentation mode's near-black table, head 4's orange on white.
QColor headTextColor(int head, const QColor& background);

}  // namespace headscope::ui
