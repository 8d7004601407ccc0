#include "MatrixPage.h"

#include <QScrollArea>
#include <qcustomplot.h>

#include "MatrixPanel.h"

namespace headscope::ui::page {

QScrollArea* scrolling(QWidget* owner, QCustomPlot* plot) {
    auto* scroll = new QScrollArea(owner);
    scroll->setWidget(plot);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

void fit(QCustomPlot* plot, int needed, const QList<MatrixPanel*>& panels, double min_side, double min_row) {
    // The scroll area resizes the plot to this later (a resize event: the view fits again).
    if (plot->minimumHeight() != needed) plot->setMinimumHeight(needed);
    MatrixPanel::layOutToShape(plot, panels, min_side, min_row);  // the bars' numbers follow (ColourBarTicker)
}

}  // namespace headscope::ui::page
