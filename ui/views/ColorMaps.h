#pragma once
// Colour maps for the heatmaps, defined from their published colour stops.
//  - viridis, magma: matplotlib's perceptually uniform maps (van der Walt & Smith, 2015),
//    33 stops (every 8th of the 256 entries, plus the last) so that linear RGB interpolation
//    stays within 2/255 of the full table. Attention weights use viridis on [0, 1] (shared)
//    or [0, max] per head.
//  - redBlue: ColorBrewer's 11-class RdBu (Cynthia Brewer), for signed matrices (logits,
//    W_QK) on a range symmetric about zero. Orientation: BLUE for negative, white at zero,
//    RED for positive ("hot" = the key scores high for this query), i.e. matplotlib's RdBu_r.
// Missing values (NaN, used for masked cells) are drawn in grey: maskColor(gradient) gives the
// grey each map uses, chosen to differ from every colour of that map.

#include <QColor>
#include <qcustomplot.h>

namespace headscope::ui {

QCPColorGradient viridisGradient();
QCPColorGradient magmaGradient();
QCPColorGradient redBlueGradient();

// The colour NaN cells get in each of the gradients above.
QColor viridisNanColor();   // light grey: lighter than viridis' purples, greyer than its yellows
QColor redBlueNanColor();   // mid grey: darker than the near-white of values close to zero

// Range symmetric about zero that covers [-max_abs, max_abs]; a degenerate range becomes [-1, 1].
QCPRange symmetricRange(double max_abs);

}  // namespace headscope::ui
