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
    // A panel whose numbers are not there (yet): its frame alone, rows x cols cells, to shape.
    void setEmptyShape(int rows, int cols);
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

    // Shapes to scale (issue 21): the axis rect keeps the matrix' cols:rows, so its cells are
    // square. Where that leaves a side thinner than min_side pixels (or token rows lower than
    // min_row pixels each), the panel draws the largest ratio the room allows and its bottom label
    // says so: "drawn 4:1, true 12:1" (rows:cols) under the axis' name, or where the panel's column
    // is narrower "d_k, drawn 4:1" over "true 12:1", or each on its own line (without the axis'
    // name in the narrowest column), so captions never run into their neighbours' or leave the plot. Lays plot out with every panel so shaped
    // (fit::layOut), then thins their labels (fitToRoom). Hidden or empty panels are left alone.
    static void layOutToShape(QCustomPlot* plot, const QList<MatrixPanel*>& panels, double min_side, double min_row);
    // The panels' shapes released and plot laid out: each rect the whole room it has (a view
    // measures the room before choosing its arrangement). Returns the panels shown.
    static QList<MatrixPanel*> layOutFree(QCustomPlot* plot, const QList<MatrixPanel*>& panels);
    // rows:cols as a caption writes it: "12:1", "1:5.82", "1:1".
    static QString ratioText(double rows, double cols);
    // Rows that are tokens (words on this panel or on its neighbour's): each keeps min_row pixels.
    void setTokenRows(bool token_rows) { token_rows_ = token_rows; }
    // The note on the bottom label, "" while the true shape is drawn.
    QString shapeNote() const { return shape_note_; }

private:
    bool shaped() const;
    void releaseShape();
    void chooseShape(double min_side, double min_row, bool note);  // target size (and note) from the rect's room
    void applyShape();                                  // margins that make the rect that size
    QString caption(const QString& cols) const;  // the bottom label: cols and the note, as the column holds them
    static void captionRooms(QCustomPlot* plot, const QList<MatrixPanel*>& shown);
    QCustomPlot* plot_;
    QCPAxisRect* rect_;
    CellColorMap* map_;
    int rows_ = 0, cols_ = 0;
    QStringList title_variants_, row_labels_, block_labels_;
    bool row_labels_numbered_ = false;
    QFont tick_font_;
    bool blocks_along_columns_ = true;
    int block_width_ = 0;
    int outlined_block_ = -1;  // the block framed (the selected head's), whose name is never thinned out
    QString cols_name_, shape_note_, drawn_ratio_;
    QSize shape_;         // the drawn rect's size chosen by chooseShape
    QSize free_minimum_;
    double caption_room_ = 1e9;  // pixels the caption may span, centred under the panel
    int reserve_ = 0;  // left pixels kept for thinned row labels
    bool token_rows_ = false;  // the rect's minimum size while its shape is free (QCustomPlot's)
};

}  // namespace headscope::ui
