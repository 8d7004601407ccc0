#pragma once
// Lesson 2's picture: projecting twice is one linear map. For the selected head i, with
// W_1 = W_i^Q (d_model, d_k) and W_2 = (W_i^K)^T (d_k, d_model):
//   X W_1 (n, d_k)   |   (X W_1) W_2 (n, d_model)   |   X (W_1 W_2) = X W_QK,i (n, d_model)
// and, in the title, the largest difference between the last two against the float-rounding
// bound (core's projectTwice, formed off the GUI thread). Token labels on the rows; the panels'
// widths follow their column counts, so the d_k-wide product is narrower than the others.

#include <memory>
#include <utility>

#include <QWidget>

#include "Analysis.h"
#include "AttentionView.h"
#include "MatrixPanel.h"
#include "ProjectionProduct.h"
#include "ViewOptions.h"

namespace headscope::ui {

class ProjectionProductView : public AttentionView {
    Q_OBJECT

public:
    enum Matrix { First = 0, Twice = 1, Merged = 2, kCount = 3 };
    explicit ProjectionProductView(QWidget* parent = nullptr);
    ~ProjectionProductView() override;

    QCustomPlot* plot() const override { return plot_; }
    QCPColorMap* colorMap(Matrix which) const;
    // The products drawn now (nullptr until they are formed).
    const ProjectionProduct* product() const { return product_.get(); }
    QString title() const;

    // Forms the products now and draws them (export and tests).
    void replotNow() override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the plot resized: refit

private:
    void refresh() override;
    void fitToRoom();

    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPLayoutGrid* grid_ = nullptr;
    std::unique_ptr<MatrixPanel> panels_[kCount];
    QCPColorScale* scales_[2] = {};
    QString title_text_, compact_title_;
    std::shared_ptr<const ProjectionProduct> product_;  // the store's, drawn
};

}  // namespace headscope::ui
