#pragma once
// A whole GPT-2 model at a glance (BertViz's model view): one small attention heatmap per
// (layer, head), layers down, heads across, every one drawn from the trace the document
// computed, queries down and keys across, beside one colour bar (the View menu's shared scale: one
// range for every panel; else each panel's own). The shown layer and head are framed; clicking a
// panel asks for that layer and head.
// Knocked-out heads (setAblation) are framed in red and named "off".

#include <memory>
#include <vector>

#include <qcustomplot.h>

#include "AttentionView.h"
#include "ViewOptions.h"
#include "model/Forward.h"

namespace headscope::ui {

class ModelOverviewView : public AttentionView {
    Q_OBJECT

public:
    explicit ModelOverviewView(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const model::Trace> trace);
    void setSelection(int layer, int head);
    void setOptions(const ViewOptions& options) override;  // draws at once (no refresh)
    void setAblation(const model::Ablation& ablation);
    const model::Ablation& ablation() const { return ablation_; }
    QCustomPlot* plot() const override { return plot_; }

    int layers() const { return layers_; }
    int heads() const { return heads_; }
    QCPColorMap* colorMap(int layer, int head) const;
    // The (layer, head) panel under pos (the view's and the plot's coordinates), or false.
    bool panelAt(const QPoint& pos, int* layer, int* head) const;

signals:
    void panelClicked(int layer, int head);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh() override;
    void rebuild(int layers, int heads);
    void fill();
    void frameSelection();
    void fitLabels();  // the title and the panels' names to the room they have

    std::shared_ptr<const model::Trace> trace_;
    QCustomPlot* plot_ = nullptr;
    int layers_ = 0, heads_ = 0;
    int layer_ = 0;  // the shown layer (head_: its head)
    model::Ablation ablation_;
    std::vector<QCPAxisRect*> rects_;
    std::vector<QCPColorMap*> maps_;
    QCPTextElement* title_ = nullptr;
    QCPColorScale* scale_ = nullptr;  // beside the panels: their weights' colours
    QStringList title_variants_;  // longest first
    // Each layer's sliding window as its mask shows it (the keys the last query sees when that is
    // fewer than all it could); 0 on a layer that attends to every earlier key.
    std::vector<int> windows_;
};

}  // namespace headscope::ui
