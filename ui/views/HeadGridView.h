#pragma once
// Every head's attention at once: a grid of heatmaps (one QCPAxisRect + QCPColorMap per head)
// in ONE QCustomPlot, with token labels, a title per head and a colour bar (shared, or one per
// head when ViewOptions::shared_scale is false). Shows softmax weights (viridis) or logits
// (RdBu, symmetric about zero) per ViewOptions::show_logits; masked cells are NaN, drawn grey.
//
// Orientation: key tokens along x, query tokens down y with row 0 at the top, so
// colorMap(h)->data()->cell(col, row) == results.heads[h].weights(row, col) (or logits).
// Updates only copy numbers and queue a replot; the layout is rebuilt only when the number of
// heads, the column count or the colour-bar mode changes. When nothing but the numbers changed
// (same tokens, same colour ranges, e.g. dragging a seed or temperature with weights on the
// shared [0, 1] scale), only the buffered "main" layer holding the colour maps is redrawn.

#include <QLabel>
#include <QPoint>
#include <QSize>
#include <QString>
#include <memory>
#include <optional>
#include <qcustomplot.h>
#include <vector>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui {

class HeadGridView : public QCustomPlot {
    Q_OBJECT

public:
    explicit HeadGridView(QWidget* parent = nullptr);

    // Draws the analysis; the same object again (changed() after forwardReady()) draws nothing.
    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }
    // Session::forwardReady: an analysis whose spectra are still being computed. The grid reads
    // only its config, input and results, so it draws it at once.
    void setForwardResults(std::shared_ptr<const Analysis> analysis) { setAnalysis(std::move(analysis)); }
    // How many new analyses kept the label layout of the one before (for tests).
    int labelLayoutsReused() const { return label_layouts_reused_; }

    void setOptions(const ViewOptions& options);
    const ViewOptions& options() const { return options_; }

    // Grid columns; 0 (the default) picks them from the widget's shape (about ceil(sqrt(h))).
    void setColumnCount(int columns);
    int columnCount() const { return columns_; }

    int headCount() const { return static_cast<int>(cells_.size()); }  // colour maps shown
    QCPColorMap* colorMap(int head) const;     // the numbers the user sees
    int drawnCells() const { return drawn_cells_; }  // at most this many cells a side per panel (heatmap::gridCells)
    QCPColorScale* colorScale(int head) const; // the colour bar head uses (shared or its own)
    QCPAxisRect* headRect(int head) const;
    QString title() const;                     // the plot's title line

    // Head whose panel (heatmap, labels and title) contains pos, or -1.
    int headAt(const QPoint& pos) const;
    // What hovering pos shows ("head 3 · query 'cat' (row 1) → key ... · weight 0.214"), or "".
    QString describe(const QPoint& pos) const;

    // Lay out and draw now (export, tests); the GUI path queues replots instead.
    void replotNow();

    // Sequences longer than this are exported with panels sized for thinned words (Export.cpp).
    static constexpr int kMaxTokenLabels = 40;
    // When a word per cell does not fit, every k-th word is shown with its position ("12:the"; k
    // up to this, or further while at least two words fit; the axis title says "every 3rd key");
    // then positions.
    static constexpr int kMaxLabelStride = 6;
    // From this many heads on, one shared colour bar even when ViewOptions::shared_scale is off
    // (the subtitle says so): a bar per head would be a pile of numbers. Fewer heads get one
    // each only where three of its numbers fit (perHeadBarsShown()).
    static constexpr int kMaxHeadBars = 32;
    bool perHeadBarsShown() const { return !cells_.empty() && !layout_shared_; }
    QCPTextElement* titleElement() const { return title_; }
    QCPTextElement* subtitleElement() const { return subtitle_; }
    int keyLabelStride() const { return x_stride_; }    // 1: every key's word is shown
    int queryLabelStride() const { return y_stride_; }

    // Thumbnails (the Heads tab beside the selected head drawn large): every head's heatmap with
    // its title, one shared colour bar, no words on the axes (the large head carries them) and a
    // one-line subtitle. A click still selects a head.
    void setThumbnails(bool on);
    // The narrowest grid: with words, and as thumbnails (two columns of kMinThumbnail squares
    // beside their colour bar), which leaves a low tab's large head the width for its words.
    static constexpr int kMinWidth = 240, kThumbnailsMinWidth = 200;
    bool thumbnails() const { return thumbnails_; }
    // The narrowest width at which `height` pixels hold the heads' thumbnails with at least
    // `side` pixels each (kMinThumbnail), however many columns that takes; 0 without heads.
    int thumbnailsWidth(int height, int side) const;

    // The selected head: its title is marked and its panel framed.
    void setHead(int head);
    int head() const { return head_; }
    // Heads knocked out (Session::ablation, for the layer shown): framed in red, titled "off".
    void setHeadsOff(std::vector<bool> off);
    bool headOff(int head) const { return head >= 0 && head < int(heads_off_.size()) && heads_off_[std::size_t(head)]; }
    // Cells whose value is printed in them now (ViewOptions::cell_numbers, and only when every
    // cell has room for its number at the current size and font scale).
    int cellNumbersShown() const;
    // Presentation mode: the cell under the mouse is framed and its value shown in large type.
    void setHoverHighlight(bool on);
    bool hoverHighlight() const { return hover_highlight_; }
    QLabel* hoverLabel() const { return hover_label_; }

    // Queries whose keys are all masked (0/0 in the softmax), hatched in every panel.
    const QList<int>& fullyMaskedRows() const { return fully_masked_rows_; }

signals:
    void headClicked(int head);                 // a click on a head's panel
    void cellClicked(int head, int row, int col);  // a click on a cell
    void headActivated(int head);               // a double click: open it large
    void cellHovered(QString text);
    void headCountChanged(int heads);           // a new layout for another number of heads

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // Point sizes at font_scale 1: readable from the back of a classroom at 1.5-2.
    static constexpr double kTitlePt = 14, kSubtitlePt = 10, kHeadTitlePt = 11, kTickPt = 10, kBarPt = 10;

    struct Cell {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        QCPColorScale* scale = nullptr;  // own colour bar (per-head mode) or nullptr
    };

    // True when more than the colour maps' numbers changed. reuse_labels: a new analysis may
    // keep the last label layout (see LabelLayout).
    bool refresh(const QSize& size, bool reuse_labels = false);
    QString structure() const;         // everything drawn except the colour maps' cells
    void rebuildLayout(int heads, int columns, bool shared);
    bool perHeadBarsFit(int heads, const QSize& size) const;
    int ownBarWidth() const;
    QSize thumbnailRoom(const QSize& size) const;  // what the thumbnails share (GridShape's room)
    int thumbnailTitleHeight() const;              // a row's head title and paddings
    static constexpr int kThumbnailGap = 10;
    int fittingColumns(int heads, const QSize& size, int columns) const;
    void clearLayout();
    void updateTexts();
    void updateLabels(const QSize& size);
    void wrapTitles(const QSize& size);
    // wrapTitles(), beside the large head: the texts (unwrapped) give way to the thumbnails.
    void fitThumbnailTexts(const QSize& size, int width, const QString& title, QString subtitle);
    void setThinningNote(const QString& note);  // "words: every 3rd key ..." under the subtitle
    void applyFonts();
    void equalizeRows(const QSize& size);  // the same heatmap height in every row
    void setHover(const QString& text);
    void markSelection();
    void markFullyMaskedRows();
    void updateCellNumbers();
    void placeCellNumbers();  // after each layout: shown only where the cells are large enough
    void showHoverCell(const QPoint& pos);
    QString labelInputs(const QSize& size) const;
    std::vector<QSize> cellSizes() const;
    void fillMaps();                       // every head's map from analysis_, drawn_cells_ a side at most
    double panelPixels() const;            // the widest or tallest panel as last laid out (logical pixels)
    void refillIfPanelsChanged();          // afterLayout: fillMaps() again where the panels' cells changed
    bool reuseLabelLayout(const QString& inputs);  // true: the last layout's texts hold, applied

    // The label layout of the last full refresh: its inputs (words, geometry, options, the
    // colour bar's label), its result the words per axis and the equal rows leave in the plot
    // and the bar's shortened label, and the cells' sizes as last laid out. A new analysis with
    // the same inputs whose cells, laid out once with its own (wrapped) titles, have the same
    // sizes keeps it: a new seed, temperature or mask skips the label work (about 1 ms at 12
    // heads), which depends on nothing else.
    struct LabelLayout {
        QString inputs, bar_label;
        std::vector<QSize> cells;  // updated after every layout (afterLayout)
    };
    std::optional<LabelLayout> label_layout_;
    int label_layouts_reused_ = 0;

    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    std::vector<bool> heads_off_;
    int fixed_columns_ = 0;
    int columns_ = 0;
    bool layout_shared_ = true;
    bool layout_logits_ = false;
    std::vector<Cell> cells_;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* subtitle_ = nullptr;
    QCPColorScale* shared_scale_ = nullptr;
    QCPMarginGroup* margin_group_ = nullptr;
    QStringList query_labels_, key_labels_;
    int query_labels_width_ = -1, key_labels_width_ = -1;  // the widest of each, in label_width_font_
    QFont label_width_font_;
    int x_stride_ = 1, y_stride_ = 1;
    bool short_titles_ = false;            // "h3" instead of "head 3" when the heads are narrow
    bool compact_texts_ = false;           // short title and subtitle: the heatmaps need the height
    bool thumbnails_ = false;              // setThumbnails()
    int drawn_cells_ = 0;                  // refresh(): heatmap::gridCells of the panels' size
    QSize laid_out_size_;                  // the size refresh() last laid the panels out for
    bool panels_laid_out_ = false;         // a replot has laid out the panels since the last rebuild
    QString thinning_note_;                // "every 3rd key shown" in the subtitle, where axes have no room for it
    QString subtitle_text_;                // the subtitle as wrapped, without the note
    bool rows_measured_ = false;           // the cells' sizes were just measured on the final layout
    QCPLayoutGrid* heads_grid_ = nullptr;  // the heads' grid inside the body (column stretch)
    QString hover_text_;
    QString structure_;
    int pressed_head_ = -1;
    int head_ = 0;
    QList<int> fully_masked_rows_;
    std::vector<QCPAbstractItem*> row_marks_;
    std::vector<QCPItemText*> number_items_;
    bool hover_highlight_ = false;
    QCPItemRect* hover_rect_ = nullptr;
    QLabel* hover_label_ = nullptr;
};

}  // namespace headscope::ui
