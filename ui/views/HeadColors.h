#pragma once
// One colour per head, the same in every view (spectra, rank table, token lines): Okabe &
// Ito's colour-blind-safe palette (yellow left out: too pale on white), then golden-ratio hues.

#include <QColor>

namespace headscope::ui {

QColor headColor(int head);

}  // namespace headscope::ui
