#pragma once
// What knocking heads out of a single attention layer (generated weights, a loaded layer) does
// to its output (n x d_model), token by token (core's model::LayerAblation): grey, the norm of
// each position's output intact, ‖output_p‖; red, the norm of its change, ‖output'_p − output_p‖,
// where output' = concat' W_O + b_O is recomputed with the heads' outputs zeroed or replaced by
// their mean. The title names the heads off, the largest change and the relative change; the
// other heads' outputs are not touched (their largest difference, 0, is said too).

#include <memory>

#include <qcustomplot.h>

#include "DeferredRefresh.h"
#include "ViewOptions.h"
#include "model/AblationLayer.h"

namespace headscope::ui {

class OutputChangeView : public QCustomPlot {
    Q_OBJECT

public:
    explicit OutputChangeView(QWidget* parent = nullptr);

    // null or no heads off: the view says how to knock one out. tokens: the query tokens' words.
    void setAblation(std::shared_ptr<const model::LayerAblation> ablation, const QStringList& tokens);
    void setOptions(const ViewOptions& options);

    QCPBars* outputBars() const { return output_; }  // ‖output_p‖ keyed by position
    QCPBars* changeBars() const { return change_; }  // ‖Δ output_p‖ keyed by position
    QString title() const { return title_->text(); }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void refresh();
    void fitLabels();

    std::shared_ptr<const model::LayerAblation> ablation_;
    ViewOptions options_;
    QCPTextElement* title_ = nullptr;
    QStringList title_variants_;  // longest first
    QString message_;             // why there is nothing to draw
    QCPBars* output_ = nullptr;
    QCPBars* change_ = nullptr;
    QCPBarsGroup* group_ = nullptr;
    QStringList labels_;
    DeferredRefresh* deferred_ = nullptr;
};

}  // namespace headscope::ui
