#pragma once
// Each head's direct contribution to the logit of the token a loaded model predicts after the
// text (core's directAttribution: the head's output through its rows of W_O, the final norm's
// scale frozen from the intact run, the unembedding), as a heatmap of layers (down) x heads
// (across), red for a push towards the token, blue against it, symmetric about zero. A knocked
// out head is crossed out; with zero ablation it contributes nothing.

#include <memory>
#include <vector>

#include <qcustomplot.h>

#include "DeferredRefresh.h"
#include "ViewOptions.h"
#include "model/AblationEffects.h"

namespace headscope::ui {

class AttributionView : public QCustomPlot {
    Q_OBJECT

public:
    explicit AttributionView(QWidget* parent = nullptr);

    void setEffects(std::shared_ptr<const model::AblationEffects> effects);  // null: no model
    void setOptions(const ViewOptions& options);

    QCPColorMap* colorMap() const { return map_; }  // cell (head, layer)
    QString title() const { return title_->text(); }
    // The (layer, head) cell under pos, or false.
    bool headAt(const QPoint& pos, int* layer, int* head) const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void refresh();
    void fitLabels();
    void placeCellTexts();

    std::shared_ptr<const model::AblationEffects> effects_;
    ViewOptions options_;
    QCPTextElement* title_ = nullptr;
    QStringList title_variants_;
    QString message_;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    std::vector<QCPItemText*> cell_texts_;  // the value, or "off", in each cell
    DeferredRefresh* deferred_ = nullptr;
};

}  // namespace headscope::ui
