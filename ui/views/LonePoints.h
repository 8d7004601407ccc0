#pragma once
// A line graph of a single point draws nothing (a training run at step 0 has one evaluation):
// such a graph's point is drawn as a dot in its pen's colour; graphs of more points draw lines only.
#include <qcustomplot.h>

namespace headscope::ui {

inline void dotLonePoints(QCustomPlot* plot) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        g->setScatterStyle(g->dataCount() == 1 ? QCPScatterStyle(QCPScatterStyle::ssDisc, g->pen().color(), 7)
                                               : QCPScatterStyle(QCPScatterStyle::ssNone));
    }
}

}  // namespace headscope::ui
