#pragma once
// One head, large: its weights or logits heatmap with every token label and a colour bar,
// and beside it the numbers that explain it: d_k, d_v, the rank of W_QK,i = W_i^Q (W_i^K)^T
// (at most d_k), its largest singular values, the rank of W_OV,i and of the logits.
// Opened by the main window when a head of the HeadGridView is activated.

#include <QWidget>
#include <memory>
#include <vector>
#include <qcustomplot.h>

#include "Analysis.h"
#include "ViewOptions.h"

class QLabel;
class QScrollArea;

namespace headscope::ui {

class HeadDetailView : public QWidget {
    Q_OBJECT

public:
    explicit HeadDetailView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }
    void setHead(int head);  // clamped to the heads there are
    int head() const { return head_; }
    void setOptions(const ViewOptions& options);
    const ViewOptions& options() const { return options_; }

    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    QCustomPlot* plot() const { return plot_; }  // the heatmap, with a title and the key numbers
    QString infoText() const;                    // the side panel, as plain text
    void setInfoShown(bool on);                  // the side panel (off in the Heads tab's large head)
    // In a low room: a one-line title, no subtitle or axis titles, words down to 8 pt, where that
    // keeps a word on every row and column which the full layout would thin.
    bool compact() const { return compact_; }
    void setCompactAllowed(bool on);  // the Heads tab's large head; the head window keeps its numbers
    // The width at which the compact layout, `height` pixels high, draws a word on every row and
    // column (the largest words that fit); 0 where no size fits or nothing is shown.
    int widthForEveryWord(int height) const;
    // The full layout's minimum (plot and margins); a lower room takes the compact layout only
    // where widthForEveryWord() fits (HeadsTab decides).
    static constexpr int kFullMinWidth = 328, kFullMinHeight = 288;
    double tickPointSize() const { return label_fit_.tick_pt; }

    void replotNow();

    // Zoom and pan (HeadDetailZoom.cpp): the tokens in view, keys along x from window.x(), queries
    // along y from window.y(); empty while every token is. The mouse wheel zooms about the pointer,
    // a drag pans, a double-click shows every token again; a new text of another length resets it.
    // A map larger than kMaxDrawnCells a side is drawn downsampled (each cell its block's largest),
    // and at every zoom the words are thinned for the tokens in view.
    QRect tokenWindow() const { return window_; }
    void setTokenWindow(QRect window);  // clamped to the tokens, at least kMinZoomTokens a side
    static constexpr int kMinZoomTokens = 4;

signals:
    void cellHovered(QString text);
    void tokenCountChanged();  // widthForEveryWord() changed

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // How the token words fit: the tick size, the compact layout (one-line title, no subtitle
    // or axis titles) and every k-th word on each axis.
    struct LabelFit {
        double tick_pt = 10;
        bool compact = false;
        bool titled = true;  // compact and untitled: the title stands beside the colour bar
        bool rotate = false;
        int x_stride = 1, y_stride = 1;
        bool every() const { return x_stride == 1 && y_stride == 1; }
    };
    LabelFit fitLabels(double tick_pt, bool compact, bool titled) const;  // HeadDetailLabels.cpp, as the next four
    void chooseLabelFit();
    int fullChromeHeight() const;
    int titleWidth() const;  // what the title and subtitle wrap to
    int compactBarWidth(bool titled) const;
    int compactChromeHeight(bool titled) const;
    void arrangeRows(bool title, bool subtitle);  // the plot's rows above the heatmap  // sets label_fit_ and compact_, and the layout that follows

    void refresh();
    void updateLabels();
    void applyFonts();
    void fitInfoWidth();
    void onMouseMove(QMouseEvent* event);
    void onAxisRange();                 // the wheel or a drag moved the axes: the window follows
    void applyTokenWindow();            // the axes' ranges from window_
    int shownKeys() const;              // the window's width, or every key
    int shownQueries() const;
    QString zoomNote() const;           // the subtitle's "keys 100–355 of 2048 · ..." while zoomed or downsampled
    QCPRange colourRange(bool logits);  // heatmap::dataRange, kept while the analysis, head and options stay

    static constexpr double kTitlePt = 14, kSubtitlePt = 10, kTickPt = 10, kAxisPt = 11, kInfoPt = 10;
    // In a low room (a lesson strip below the Heads tab at 2x) the words may shrink to this size
    // before they thin: 8 pt at 2x is still 1.6 times the 1x words.
    static constexpr double kSmallestTickPt = 8, kCompactTitlePt = 12;
    // Words stand 0.8 lines apart; compact, 0.7 (lower-case words touch only where a descender
    // meets an ascender; seen legible at 1024 x 768, 2x).
    static constexpr double kLineSpacing = 0.8, kCompactLineSpacing = 0.7;

    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    int head_ = 0;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* subtitle_ = nullptr;
    QCPAxisRect* rect_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QCPLayoutGrid* body_ = nullptr;  // the heatmap and its colour bar
    std::vector<QCPAbstractItem*> row_marks_;  // hatched fully masked rows
    QString full_title_, subtitle_text_;        // the full layout's texts, before wrapping
    QCPMarginGroup* margin_group_ = nullptr;
    QLabel* info_ = nullptr;
    QScrollArea* info_scroll_ = nullptr;
    QString hover_text_;
    LabelFit label_fit_;
    bool compact_ = false;
    bool compact_allowed_ = false;
    QRect window_;               // the tokens in view; empty: all
    bool applying_range_ = false;  // the axes are being set from window_
    struct RangeKey {
        std::weak_ptr<const Analysis> analysis;
        int head = -1;
        bool logits = false, shared = false;
    } range_key_;
    QCPRange range_;
};

}  // namespace headscope::ui
