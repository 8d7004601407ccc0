#pragma once
// Parameters and multiply-adds of each variant the seed questions compare, every number beside
// the formula that gives it, updating live:
//  - one head's W_QK: two factors 2 d_model d_k vs one merged d_model^2;
//  - one head's logits: factored vs through the merged W_QK;
//  - the projections: fused (X W_Q for all heads) vs per head (3h maps): the same count;
//  - attention: h heads of d_k vs one full-width head of d_model.
// Numbers come from core's computeCost (the closed forms); nothing is counted here.

#include <memory>

#include <QWidget>

#include "Analysis.h"
#include "DeferredRefresh.h"
#include "ViewOptions.h"

class QLabel;

namespace headscope::ui {

class CostView : public QWidget {
    Q_OBJECT

public:
    explicit CostView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setOptions(const ViewOptions& options);

    QString html() const;       // the rich text shown
    QWidget* page() const;      // the text itself, at its natural size (for export)
    void replotNow();           // refresh now, shown or not (export)
    QString plainText() const;  // the same, one line per row, for tests and the clipboard

private:
    void refresh();
    DeferredRefresh* deferred_ = nullptr;  // no work while in a hidden tab

    QLabel* label_ = nullptr;
    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
};

}  // namespace headscope::ui
