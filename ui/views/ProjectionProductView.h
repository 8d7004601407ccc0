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
#include "DeferredRefresh.h"
#include "MatrixPanel.h"
#include "ProjectionProduct.h"
#include "ViewOptions.h"
#include "ResultStoreLink.h"

namespace headscope::ui {

class ProjectionProductView : public QWidget {
    Q_OBJECT

public:
    enum Matrix { First = 0, Twice = 1, Merged = 2, kCount = 3 };
    explicit ProjectionProductView(QWidget* parent = nullptr);
    ~ProjectionProductView() override;

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setOptions(const ViewOptions& options);
    void setResultStore(ResultStore* results);  // the document's; without one the view keeps its own
    int head() const { return head_; }

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap(Matrix which) const;
    // The products drawn now (nullptr until they are formed).
    const ProjectionProduct* product() const { return product_.get(); }
    QString title() const;

    // Forms the products now and draws them (export and tests).
    void replotNow();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void fitToRoom();
    DeferredRefresh* deferred_ = nullptr;  // no work while in a hidden tab

    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPLayoutGrid* grid_ = nullptr;
    std::unique_ptr<MatrixPanel> panels_[kCount];
    QCPColorScale* scales_[2] = {};
    QString title_text_, compact_title_;
    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    int head_ = 0;
    std::shared_ptr<const ProjectionProduct> product_;  // the store's, drawn
    ResultStoreLink results_{this, {ResultStore::Kind::ProjectionProduct}, [this]() { deferred_->request(); }};
};

}  // namespace headscope::ui
