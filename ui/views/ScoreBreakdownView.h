#pragma once
// How one score is made (BertViz's neuron view, with the arithmetic written out): for the
// selected head and cell (query i, key j), bar charts of q_i, k_j and q_i * k_j over the head's
// d_k dimensions; the sum, the scale 1/sqrt(d_k) and 1/T, the logit; the same score through the
// merged circuit x_i W_QK,i x_j^T plus the bias terms, with the difference between the two; and
// the whole softmax row over the key tokens with this cell marked and its weight. A masked
// cell shows why it is masked instead of numbers.
// Every number comes from core's scoreBreakdown() over the analysis (the engine's Q, K, logits
// and weights) and from the document's W_QK,i (setCircuits); the view never computes attention.
// Without a selected cell it shows defaultCell(): the last query and its most-attended key.
// Clicking a key's bar in the softmax row asks for that cell (cellClicked).

#include <QWidget>
#include <memory>
#include <tuple>
#include <qcustomplot.h>

#include "Analysis.h"
#include "AttentionView.h"
#include "Circuits.h"
#include "ScoreBreakdown.h"
#include "ViewOptions.h"

class QScrollArea;

namespace headscope::ui {

class ScoreBreakdownView : public AttentionView {
    Q_OBJECT

public:
    enum Chart { Query = 0, Key = 1, Product = 2, Softmax = 3 };
    explicit ScoreBreakdownView(QWidget* parent = nullptr);

    void setOptions(const ViewOptions& options) override;

    // The breakdown on screen (valid once an analysis was given).
    const ScoreBreakdown& breakdown() const { return breakdown_; }
    bool hasBreakdown() const { return has_breakdown_; }
    QCustomPlot* plot() const override { return plot_; }
    QCPBars* bars(Chart chart) const { return bars_[chart]; }
    // The softmax row's marked bar (this cell's weight), one point at the key's position.
    QCPBars* markedBar() const { return marked_; }
    QString title() const;
    QString arithmetic() const;  // the written sum, scale, logit, bilinear form and difference

    void replotNow() override;  // refresh now, shown or not (export, tests)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh() override;
    void applyFonts();
    void fitToRoom();  // wrapping and label wordings for the plot's size
    ScoreBreakdown breakdown_;
    bool has_breakdown_ = false;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* text_ = nullptr;
    QString title_full_, text_full_;       // unwrapped
    QString title_compact_;                // the cell alone, for a title that would wrap too far
    static constexpr int kMaxTitleLines = 4;  // the whole title up to this many lines, else the compact one
    QStringList label_variants_[4][2];     // per chart: x and y label wordings, longest first
    QScrollArea* scroll_ = nullptr;         // the page scrolls when the tab is short
    QCPAxisRect* rects_[4] = {};
    QCPBars* bars_[4] = {};
    QCPBars* marked_ = nullptr;
};

}  // namespace headscope::ui
