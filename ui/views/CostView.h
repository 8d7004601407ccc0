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
#include "AttentionView.h"
#include "ViewOptions.h"

class QLabel;
class QScrollArea;

namespace headscope::ui {

class CostView : public AttentionView {
    Q_OBJECT

public:
    // The smallest font the tab shrinks its page to before it scrolls, as a share of its own.
    static constexpr double kSmallestFontShare = 0.75;

    explicit CostView(QWidget* parent = nullptr);

    QString html() const;       // the rich text shown (its notation typeset)
    QWidget* page() const;      // the text itself, at its natural size (for export)
    // The section a lesson step names (one of lessons::focusNames(), "" for none): first, shaded.
    void setNamedSection(const QString& section);
    QString namedSection() const { return named_; }
    // The same, one line per row, its notation as written ("W_i^Q"): for tests and the clipboard.
    QString plainText() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh() override;
    QString pageHtml(bool typeset_notation) const;  // the page; its notation typeset or as written
    void fitToRoom();  // shown: the font made smaller (to kSmallestFontShare) until no row needs scrolling

    QLabel* label_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QString named_;
    QString plain_html_;  // the page with its notation as written (plainText)
};

}  // namespace headscope::ui
