#pragma once
// The selected head's two circuits with their factors, to answer "why two matrices W_Q and
// W_K when only W_Q W_K^T matters?":
//   W_i^Q (d_model, d_k)  W_i^K (d_model, d_k)  ->  W_QK,i = W_i^Q (W_i^K)^T (d_model, d_model)
//   W_i^V (d_model, d_v)  W_i^O (d_v, d_model)  ->  W_OV,i = W_i^V W_i^O     (d_model, d_model)
// with each product's rank against its bound and the parameters of two factors against one
// merged matrix. The factors are views into the fused matrices; the products come formed from
// the document's worker (setCircuits), never from this view. Signed values: red-blue,
// symmetric about zero, one colour bar per matrix.
// On a rotary layer (setRotaryDelta) the QK row shows W_QK,i(Delta) = W_i^Q R(Delta) (W_i^K)^T at
// the shared Delta (a slider above the page), formed with its rank by RotaryDelta's worker.

#include <memory>

#include <QWidget>

#include "Analysis.h"
#include "AttentionView.h"
#include "Circuits.h"
#include "MatrixPanel.h"
#include "ViewOptions.h"

namespace headscope::ui {

class DeltaSlider;
class RotaryDelta;
struct RotaryDeltaResult;

class CircuitView : public AttentionView {
    Q_OBJECT

public:
    enum class Rows { Both, QK, OV };
    enum Matrix { Query = 0, Key = 1, QK = 2, Value = 3, Output = 4, OV = 5 };
    explicit CircuitView(QWidget* parent = nullptr, Rows rows = Rows::Both);
    ~CircuitView() override;

    void setAnalysis(std::shared_ptr<const Analysis> analysis) override;  // refreshes for another layer only
    void setRotaryDelta(RotaryDelta* delta);
    DeltaSlider* deltaSlider() const { return delta_slider_; }

    QCustomPlot* plot() const override { return plot_; }
    QCPColorMap* colorMap(Matrix which) const;
    // True when the product `which` (QK or OV) shows the document's circuits for this head.
    bool productShown(Matrix which) const;
    QString title() const;

    void replotNow() override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the plot resized: refit

private:
    void refresh() override;
    void wrapTitle();
    QString title_text_;     // before wrapping
    QString compact_title_;  // the same ranks and counts, without the formulas
    static constexpr int kMaxTitleLines = 5;  // the whole title up to this many lines, else the compact one

    Rows rows_;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    std::unique_ptr<MatrixPanel> panels_[6];
    QCPColorScale* scales_[6] = {};
    RotaryDelta* delta_ = nullptr;
    DeltaSlider* delta_slider_ = nullptr;
};

}  // namespace headscope::ui
