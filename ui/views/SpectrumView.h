#pragma once
// Singular values of every head's W_QK,i = W_i^Q (W_i^K)^T (left) and W_OV,i = W_i^V W_i^O
// (right), one line per head on a logarithmic y axis, index (1, 2, ...) on x. A vertical dashed
// line marks d_k (d_v): a product through d_k dimensions has at most d_k non-zero singular
// values. A horizontal dotted line marks the rank tolerance (values below it count as zero).
// The legend reads "head i: rank r" (heads with the same rank are grouped when there are many).

#include <QWidget>
#include <memory>
#include <qcustomplot.h>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui {

class SpectrumView : public QWidget {
    Q_OBJECT

public:
    explicit SpectrumView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }
    void setOptions(const ViewOptions& options);  // uses font_scale

    QCustomPlot* plot() const { return plot_; }
    QCPAxisRect* qkRect() const { return qk_rect_; }
    QCPAxisRect* ovRect() const { return ov_rect_; }
    QCPGraph* qkGraph(int head) const;  // singular values of W_QK,head (index 1.. on x)
    QCPGraph* ovGraph(int head) const;

    void replotNow();

    // Up to this many heads get one legend row each; more are grouped by rank.
    static constexpr int kMaxLegendRows = 4;

private:
    void refresh();
    void rebuild(int heads);
    void fillPanel(bool qk);
    void applyFonts();

    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPAxisRect* qk_rect_ = nullptr;
    QCPAxisRect* ov_rect_ = nullptr;
    QCPLegend* qk_legend_ = nullptr;
    QCPLegend* ov_legend_ = nullptr;
    QVector<QCPGraph*> qk_graphs_, ov_graphs_;
};

}  // namespace headscope::ui
