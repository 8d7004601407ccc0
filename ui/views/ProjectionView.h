#pragma once
// One head's projection matrices as heatmaps, to answer "why two matrices W_Q and W_K when
// only W_Q W_K^T matters?": W_i^Q (d_model, d_k) and W_i^K (d_model, d_k), the views into the
// fused W_Q / W_K that the head reads all of d_model through, and their product
// W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model), whose rank is at most d_k.
// Signed values: red-blue, symmetric about zero, one colour bar per matrix.

#include <memory>

#include <QWidget>

#include "Analysis.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;

namespace headscope::ui {

class ProjectionView : public QWidget {
    Q_OBJECT

public:
    enum Matrix { Query = 0, Key = 1, Product = 2 };
    // W_QK is formed here (d_model^2 d_k multiply-adds); above this much work it is not drawn.
    static constexpr double kMaxProductWork = 1e8;

    explicit ProjectionView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    int head() const { return head_; }

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap(Matrix which) const { return maps_[which]; }
    QString title() const;

private:
    void refresh();

    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPAxisRect* rects_[3] = {};
    QCPColorMap* maps_[3] = {};
    QCPColorScale* scales_[3] = {};
    std::shared_ptr<const Analysis> analysis_;
    int head_ = 0;
};

}  // namespace headscope::ui
