#pragma once
// A plot of matrix panels as a page (issue 21: "every plot keeps a minimum size per matrix
// row/column or scrolls"): the plot sits in a frameless scroll area that scrolls vertically,
// never sideways, when the room is lower than the page needs, and its panels are drawn to their
// shape in the room they get (MatrixPanel::layOutToShape: "drawn a:b, true c:d" where they
// cannot). Shared by the circuit and fused-projection views.

#include <QList>

class QCustomPlot;
class QScrollArea;
class QWidget;

namespace headscope::ui {

class MatrixPanel;

namespace page {

// plot in a new scroll area, a child of owner: vertical scroll bar as needed, never a horizontal one.
QScrollArea* scrolling(QWidget* owner, QCustomPlot* plot);

// The page at least `needed` pixels high (the scroll area shows its bar below that), then the
// panels to shape in the plot's present room, at least min_side pixels a side and min_row pixels
// a token row where the room allows.
void fit(QCustomPlot* plot, int needed, const QList<MatrixPanel*>& panels, double min_side, double min_row);

}  // namespace page
}  // namespace headscope::ui
