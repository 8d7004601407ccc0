#pragma once
// RoPE made visible for one layer (issue 22 item 4), two plots:
//  - the selected cell's logit against Delta with its content fixed: q_i and k_j (unrotated)
//    stay, only the distance changes, logit(Delta) = x_i W_QK,i(Delta) x_j^T * scale / T (core
//    cellLogitCurve over the engine's rotated q and k, from the ResultStore, computed off the
//    GUI thread: the last curve stays drawn until the new one is there); the cell's own
//    Delta = j - i is marked and its value there is the engine's logit;
//  - per head, how much of W_i^Q (W_g^K)^T lives in each rotary frequency pair (core pairShares,
//    from RotaryDelta's result): a heads x pairs heatmap, high frequency (theta_p near 1:
//    positional) left, low frequency (semantic) right, the unrotated dims last (partial rotary);
//    each head's row sums to 1.
// A layer without rotary positions says that its logits do not depend on Delta.
// A registry view ("rope"): it follows the analysis, the head and the cell through AttentionView.
// The window gives it its shared RotaryDelta (setRotaryDelta) for the shares; built alone
// (export, lessons) it reads them from the ResultStore (W_QK,i(0) of every head, no product).

#include <QWidget>
#include <memory>
#include <tuple>
#include <qcustomplot.h>

#include "Analysis.h"
#include "AttentionView.h"
#include "RotaryCircuits.h"
#include "ViewOptions.h"

class QLabel;

namespace headscope::ui {

class RotaryDelta;

class RotaryView : public AttentionView {
    Q_OBJECT

public:
    explicit RotaryView(QWidget* parent = nullptr);

    // A cell of (-1, -1) is the Score tab's default cell.
    void setOptions(const ViewOptions& options) override;
    void setRotaryDelta(RotaryDelta* delta);

    // What is on screen (valid after a refresh on a rotary layer).
    const LogitCurve& curve() const { return curve_; }
    int cellDelta() const { return cell_delta_; }
    double engineLogit() const { return engine_logit_; }  // the engine's logit of the cell (-inf: masked)
    int row() const { return shown_row_; }
    int col() const { return shown_col_; }
    QString curveTitle() const;
    QString sharesTitle() const;
    QString note() const;  // the sentence for a layer without rotary positions, else ""
    QCPGraph* curveGraph() const { return curve_graph_; }
    QCPColorMap* sharesMap() const { return shares_map_; }
    QCustomPlot* curvePlot() const { return curve_plot_; }
    QCustomPlot* sharesPlot() const { return shares_plot_; }

    QCustomPlot* plot() const override { return curve_plot_; }
    void replotNow() override;  // draws now, the curve computed first (export and tests)
    // Curves computed so far (each a job on the worker; a burst of cells coalesces).
    bool curveBusy();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitTexts();  // titles wrapped to the width, pair labels thinned to the room
    void refresh() override;
    void refreshCurve(const CellLogitCurve* computed);
    void refreshShares();
    void applyFonts();

    RotaryDelta* delta_ = nullptr;
    int shown_row_ = -1, shown_col_ = -1, cell_delta_ = 0;
    double engine_logit_ = 0;
    LogitCurve curve_;
    QLabel* note_ = nullptr;
    QCustomPlot* curve_plot_ = nullptr;
    QCPTextElement* curve_title_ = nullptr;
    QCPGraph* curve_graph_ = nullptr;
    QCPGraph* cell_point_ = nullptr;
    QCustomPlot* shares_plot_ = nullptr;
    QCPTextElement* shares_title_ = nullptr;
    QCPColorMap* shares_map_ = nullptr;
    QCPColorScale* shares_scale_ = nullptr;
    QString curve_text_, shares_text_;  // the titles before wrapping
    QStringList x_labels_;              // the pairs axis' wordings, longest first
    QStringList pair_labels_;           // per column: "p3\nθ=0.1"
};

}  // namespace headscope::ui
