#pragma once
// A whole GPT-2 model at a glance (BertViz's model view): one small attention heatmap per
// (layer, head), layers down, heads across, every one drawn from the trace the document
// computed, queries down and keys across, beside one colour bar (the View menu's shared scale: one
// range for every panel; else each panel's own). The shown layer and head are framed; clicking a
// panel asks for that layer and head.
// Knocked-out heads (setAblation) are framed in red and named "off".
// A real-size model (16-32 layers x 12-32 heads) has more panels than the room holds legibly:
// the panels in view are as many as fit at a size where each names its layer and head, the
// title says which, and scroll bars (and the mouse wheel; Shift for heads) bring the rest.
// A long text's maps are drawn downsampled to kThumbnailCells a side, each cell the largest
// weight it covers, so that one sharp key stays visible.

#include <memory>
#include <vector>

#include <QScrollBar>
#include <qcustomplot.h>

#include "AttentionView.h"
#include "NoModelNote.h"
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
    // Shown in place of the plot before a model is open.
    NoModelNote* noModelNote() const { return note_; }

    static constexpr int kThumbnailCells = model::kThumbnailCells;

    int layers() const { return layers_; }
    int heads() const { return heads_; }
    // The panels in view: layers firstLayer() .. firstLayer() + shownLayers() - 1, heads likewise.
    int firstLayer() const { return first_layer_; }
    int firstHead() const { return first_head_; }
    int shownLayers() const { return shown_layers_; }
    int shownHeads() const { return shown_heads_; }
    QScrollBar* layerScrollBar() const { return layer_bar_; }
    QScrollBar* headScrollBar() const { return head_bar_; }
    // The panel of (layer, head), or null when it is out of view (or the model lacks it).
    QCPColorMap* colorMap(int layer, int head) const;
    // The plot's, as before the scroll bars: they show when the room is small and must not ask
    // the window for more (a tab widget's least size is its largest page's).
    QSize minimumSizeHint() const override;
    // The (layer, head) panel under pos (the view's and the plot's coordinates), or false.
    bool panelAt(const QPoint& pos, int* layer, int* head) const;

signals:
    void panelClicked(int layer, int head);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh() override;
    void rebuild(int layers, int heads);
    void fitPanels();  // as many panels in view as the room holds legibly; rebuilds when that changed
    void scrollTo(int layer, int head);
    void fill();
    void frameSelection();
    void fitLabels();  // the title and the panels' names to the room they have

    std::shared_ptr<const model::Trace> trace_;
    QCustomPlot* plot_ = nullptr;
    NoModelNote* note_ = nullptr;
    int layers_ = 0, heads_ = 0;
    int first_layer_ = 0, first_head_ = 0, shown_layers_ = 0, shown_heads_ = 0;
    QScrollBar* layer_bar_ = nullptr;  // beside the panels: which layers are in view
    QScrollBar* head_bar_ = nullptr;   // below them: which heads
    int layer_ = 0;  // the shown layer (head_: its head)
    model::Ablation ablation_;
    std::vector<QCPAxisRect*> rects_;  // the panels in view, row by row (shown_layers_ x shown_heads_)
    std::vector<QCPColorMap*> maps_;
    QCPTextElement* title_ = nullptr;
    QCPColorScale* scale_ = nullptr;  // beside the panels: their weights' colours
    QStringList title_variants_;  // longest first
    // Each layer's sliding window as its mask shows it (the keys the last query sees when that is
    // fewer than all it could); 0 on a layer that attends to every earlier key.
    std::vector<int> windows_;
};

}  // namespace headscope::ui
