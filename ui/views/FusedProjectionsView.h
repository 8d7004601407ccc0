#pragma once
// The fused projection matrices and the activations they make, with head blocks drawn and
// labelled, to answer "is the embedding split between the heads?" and "3 linear layers or 3h?":
//   weights:      W_Q (d_model, h d_k)   W_K (d_model, kv d_k)   W_V (d_model, kv d_v)   W_O (h d_v, d_model)
//   activations:  X (n_q, d_model)       Q = X W_Q + b_Q         K = X_kv W_K + b_K      V = X_kv W_V + b_V
// Every head's block spans all d_model rows of W_Q: each head reads the whole embedding. The
// selected head's blocks are outlined (for grouped-query attention, the key/value block it
// shares). Token labels on the activations' rows. One diverging colour bar per row.
// Shapes to scale (issue 21): each matrix keeps its rows:cols (cells square) or its caption says
// "drawn a:b, true c:d". A panel's least readable room (kMinSide in the .cpp): 1 px per row and
// column up to 128, and 60 px on its short side; token rows a line of text each. The four panels
// of a row stand side by side while each keeps that width there, else two by two, or where that
// shows fewer than three panels at the page's top, the three that share their rows side by side
// (W_Q, W_K, W_V; Q, K, V) over the fourth (W_O; X). A lesson step naming Q, K, V puts the
// activations first. Below the height they then need the page scrolls vertically (never
// sideways), and once it scrolls each panel is as large as its column allows.

#include <memory>

#include <QWidget>

class QScrollArea;

#include "Analysis.h"
#include "AttentionView.h"
#include "MatrixPanel.h"
#include "ViewOptions.h"

namespace headscope::ui {

class FusedProjectionsView : public AttentionView {
    Q_OBJECT

public:
    enum Matrix { WQ = 0, WK, WV, WO, X, Q, K, V, kCount };
    explicit FusedProjectionsView(QWidget* parent = nullptr);
    ~FusedProjectionsView() override;

    QCustomPlot* plot() const override { return plot_; }
    QCPColorMap* colorMap(Matrix which) const;
    // Where the block boundaries of `which` are drawn (column or row index of each boundary).
    QList<int> blockBoundaries(Matrix which) const { return boundaries_[which]; }
    QString title() const;

    void replotNow() override;
    // The activations over the weights (a lesson step whose focus is "activations": at 1024 x 768
    // and 2x the page shows one row of panels); false: the weights first, as computed.
    void setActivationsFirst(bool first);
    bool activationsFirst() const { return activations_first_; }
    int columns() const { return columns_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh() override;
    void fitToRoom();  // titles and labels to the plot's size (after a refresh or a resize)
    void arrange(int columns, bool activations_first);  // each row's four panels 4 across, 3 and 1 or 2 x 2
    Matrix panelAt(int row, int slot) const;  // the panel of row (0 weights, 1 activations) at slot, row-major
    int gridRow(int row) const { return activations_first_ ? 1 - row : row; }
    // The page's least height as now arranged (and the panels wholly in sight at its top); the rows' shares of it.
    int sizePage(double line, int scroll_bar, int* panels_seen = nullptr);

    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    std::unique_ptr<MatrixPanel> panels_[kCount];
    QCPColorScale* scales_[2] = {};
    QCPLayoutGrid* grid_ = nullptr;  // the weights over the activations, each beside its bar
    QCPLayoutGrid* groups_[2] = {};  // the weights' and the activations' four panels
    int columns_ = 4;
    bool activations_first_ = false;
    QScrollArea* scroll_ = nullptr;
    bool token_rows_ = false;  // words on the activations' rows
    QList<int> boundaries_[kCount];
    QStringList title_variants_;  // longest first
    QString gqa_note_;            // a second title line for grouped-query attention
};

}  // namespace headscope::ui
