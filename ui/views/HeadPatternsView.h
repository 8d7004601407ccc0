#pragma once
// What each head looks at (issue 34; Clark et al. 2019): for an opened model, one cell per
// (layer, head), layers down and heads across, coloured by the share of the head's attention on
// the pattern chosen above it (model/HeadPatterns.h: first token, [SEP], previous, next, itself,
// punctuation, the other sentence, induction), with the share written in the cell where it fits.
// The title names the pattern, how many queries it applies to and the strongest head; the shown
// head is framed; clicking a cell asks for that layer and head. Sorted ("strongest first"), the
// same shares are bars, one per head from the strongest down, as many as the room holds, each
// named "L3 H7"; clicking a bar asks for its head. Read from the trace the document holds (the
// forward takes the shares); without a model, the single layer's heads as one row, computed off
// the GUI thread (ResultStore::layerPatterns).

#include <memory>

#include <QStringList>

#include <qcustomplot.h>

#include "AttentionView.h"
#include "NoModelNote.h"
#include "model/HeadPatterns.h"

class QCheckBox;
class QComboBox;
class QLabel;

namespace headscope::ui {

class HeadPatternsView : public AttentionView {
    Q_OBJECT

public:
    explicit HeadPatternsView(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const model::Trace> trace);
    // Whether a model is open: until its trace arrives the note says so; without one the view
    // shows the single layer of the analysis it follows (self-attention), as one row of heads.
    void setModelOpen(bool open);
    void setSelection(int layer, int head);
    void setPattern(model::HeadPattern pattern);
    model::HeadPattern pattern() const { return pattern_; }
    // Sorted: the heads as bars, strongest first; else the layers x heads grid.
    void setSorted(bool sorted);
    bool sorted() const { return sorted_; }
    void setOptions(const ViewOptions& options) override;
    QCustomPlot* plot() const override { return plot_; }
    // Shown in place of the plot and its choices before a model is open.
    NoModelNote* noModelNote() const { return note_; }

    // The shares drawn (layers, heads), NaN where the pattern does not apply; empty before a model.
    const Eigen::MatrixXf& shares() const { return shares_; }
    // Sorted: the heads drawn as bars, top to bottom (the strongest of ranked()).
    std::vector<model::RankedHead> barsShown() const;
    QString title() const;
    // The (layer, head) cell under pos (the plot's coordinates), or false.
    bool cellAt(const QPoint& pos, int* layer, int* head) const;

signals:
    void cellActivated(int layer, int head);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh() override;
    void drawCells();
    void drawBars();  // sorted: the strongest heads that fit, as bars
    void setAxes();   // the grid's or the bars' ranges and ticks
    void fitTitle();  // the longest of title_variants_ that fits the width, else the last wrapped
    void showPlot(bool shown);  // the plot and its choices, or the note before a model

    std::shared_ptr<const model::Trace> trace_;
    std::shared_ptr<const model::Trace> layer_patterns_;  // without a model: the single layer's (ResultStore)
    bool model_open_ = false;
    bool untrained_ = false;  // the built-in layer's random weights
    model::HeadPattern pattern_ = model::HeadPattern::PreviousToken;
    Eigen::MatrixXf shares_;
    std::vector<model::RankedHead> ranked_;  // every head with a share, strongest first
    int bars_ = 0;                           // sorted: how many of ranked_ are drawn
    bool sorted_ = false;
    int layer_ = 0;
    QLabel* pattern_label_ = nullptr;
    QComboBox* pattern_box_ = nullptr;
    NoModelNote* note_ = nullptr;
    QCheckBox* order_box_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPAxisRect* rect_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPItemRect* frame_ = nullptr;
    QStringList title_variants_;  // longest first
};

}  // namespace headscope::ui
