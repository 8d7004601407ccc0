#pragma once
// Per head: the rank of W_QK,i, of W_OV,i and of the logits Q_i K_i^T, each against the largest
// rank it can have (core's rankTable). A row is the head; selecting a row asks for that head
// (headClicked); the selected head's row is highlighted. The head column carries the head's
// colour, as in the spectra.
// A change costs what it changes: the items are kept and only texts that differ are set; the
// columns are sized once per change of content (no per-item header re-measure); when the ranks
// and bounds are those already shown, nothing happens at all.
// Under grouped-query attention the head column names each head's key/value head ("■5 · kv 1").
// On a rotary layer (setRotaryDelta) the W_QK column is the rank of W_QK,i(Delta) at the shared
// Delta, and its header says "Δ = 3".

#include <memory>

#include <QTableWidget>

class QPainter;

#include "Analysis.h"
#include "RankTable.h"
#include "ViewOptions.h"

namespace headscope::ui {

class RotaryDelta;

// The rank table drawn whole for export (issue 21): the header and every row, as text and lines
// on any painter (SVG and PDF keep the text as text; no widget bitmaps, no scroll bar).

class RankTableView : public QTableWidget {
    Q_OBJECT

public:
    explicit RankTableView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setOptions(const ViewOptions& options);
    void setRotaryDelta(RotaryDelta* delta);
    // Heads knocked out (Session::ablation, for the layer shown): their rows greyed, "off" beside the name.
    void setHeadsOff(std::vector<bool> off);

    // At least as wide as every column (the default), or as narrow as the room, scrolling sideways.
    void setKeepsWholeWidth(bool whole);
    // The height that shows every row and the header without a scroll bar, as laid out on screen.
    int heightForEveryRow() const;

    // The size the whole table takes drawn by paintWhole: every column and every row, at least
    // min_width wide (the columns share what is over their contents).
    QSize wholeSize(int min_width = 0) const;
    // Draws the header and every row at (0, 0) with the table's fonts and the rows' colours.
    void paintWhole(QPainter& painter, int min_width = 0) const;

signals:
    void headClicked(int head);
    void rowCountChanged();  // another number of heads: the room it needs changed

private:
    void refresh();
    std::vector<int> wholeColumnWidths(int min_width) const;
    int wholeRowHeight() const;
    int wholeHeaderHeight() const;
    void fitColumns();  // columns to their contents, the table at least as wide as they are
    void spreadColumns();  // the width over the contents shared by the columns
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

    std::shared_ptr<const Analysis> analysis_;
    RotaryDelta* delta_ = nullptr;
    std::vector<RankRow> shown_;  // the rows on screen
    ViewOptions options_;
    int head_ = 0;
    bool updating_ = false;
    std::vector<bool> heads_off_;
    bool whole_width_ = true;
    std::vector<int> content_widths_;  // each column's width for its contents (fitColumns)
    void markHeadsOff();
    QString headLabel(int row) const;
};

}  // namespace headscope::ui
