#pragma once
// One matrix as a heatmap panel inside a QCustomPlot: an axis rect (row 0 at the top, as NumPy
// prints it), a CellColorMap holding exactly the matrix' numbers (cell(c, r) == matrix(r, c)),
// the matrix' name and shape as its title, and optionally
//  - blocks: boundaries every `width` columns (or rows) drawn and labelled (head blocks of the
//    fused projections), one block outlined (the selected head);
//  - row labels: tokens on the rows of activations.
// Used by the circuit and fused-projection views; items are re-created on every fill, so a view
// calls QCustomPlot::clearItems() before filling its panels.

#include <Eigen/Core>
#include <QString>
#include <QStringList>
#include <qcustomplot.h>

#include "CellColorMap.h"

namespace headscope::ui {

class MatrixPanel {
public:
    MatrixPanel(QCustomPlot* plot, QCPColorScale* scale);

    QCPAxisRect* rect() const { return rect_; }
    CellColorMap* map() const { return map_; }

    // (rows, cols) -> the colour map; returns max |entry| (0 for an empty matrix).
    double setMatrix(const Eigen::Ref<const Eigen::MatrixXf>& matrix);
    void setTitle(const QString& title, const QFont& font);
    // The title in the longest of its variants (longest first) that fits, chosen by fitToRoom().
    void setTitle(const QStringList& variants, const QFont& font);
    void setAxisNames(const QString& rows, const QString& cols, const QFont& font);
    // Tokens along the rows (left axis); an empty list shows row numbers.
    // numbered: the labels carry their positions already (View > Token positions); otherwise a
    // thinned axis writes "i:word" (issue 21).
    void setRowLabels(const QStringList& labels, const QFont& font, bool numbered = false);
    // Boundaries every `width` columns (along_columns) or rows, labelled with `labels` at the top
    // (columns) or on the right (rows); block `outlined` (-1: none) gets a thick frame.
    void setBlocks(bool along_columns, int width, const QStringList& labels, int outlined, const QFont& font);
    // Once the plot is laid out (fit::layOut): the title variant, the tick steps and every how
    // many row and block labels are shown follow the panel's pixels, so no two labels overlap.
    void fitToRoom();

private:
    QCustomPlot* plot_;
    QCPAxisRect* rect_;
    CellColorMap* map_;
    int rows_ = 0, cols_ = 0;
    QStringList title_variants_, row_labels_, block_labels_;
    bool row_labels_numbered_ = false;
    QFont tick_font_;
    bool blocks_along_columns_ = true;
    int block_width_ = 0;
};

}  // namespace headscope::ui
