#pragma once
// A whole GPT-2 model at a glance (BertViz's model view): one small attention heatmap per
// (layer, head), layers down, heads across, every one drawn from the trace the document
// computed. The shown layer and head are framed; clicking a panel asks for that layer and head.
// Knocked-out heads (setAblation) are framed in red and named "off".

#include <memory>
#include <vector>

#include <qcustomplot.h>

#include "DeferredRefresh.h"
#include "ViewOptions.h"
#include "model/Forward.h"

namespace headscope::ui {

class ModelOverviewView : public QCustomPlot {
    Q_OBJECT

public:
    explicit ModelOverviewView(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const model::Trace> trace);
    void setSelection(int layer, int head);
    void setOptions(const ViewOptions& options);
    void setAblation(const model::Ablation& ablation);
    const model::Ablation& ablation() const { return ablation_; }

    int layers() const { return layers_; }
    int heads() const { return heads_; }
    QCPColorMap* colorMap(int layer, int head) const;
    // The (layer, head) panel under pos, or false.
    bool panelAt(const QPoint& pos, int* layer, int* head) const;

signals:
    void panelClicked(int layer, int head);

protected:
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void rebuild(int layers, int heads);
    void fill();
    void frameSelection();
    void fitLabels();  // the title and the panels' names to the room they have

    std::shared_ptr<const model::Trace> trace_;
    ViewOptions options_;
    int layers_ = 0, heads_ = 0;
    int layer_ = 0, head_ = 0;
    model::Ablation ablation_;
    std::vector<QCPAxisRect*> rects_;
    std::vector<QCPColorMap*> maps_;
    QCPTextElement* title_ = nullptr;
    QStringList title_variants_;  // longest first
    DeferredRefresh* deferred_ = nullptr;  // no work while in a hidden tab
};

}  // namespace headscope::ui
