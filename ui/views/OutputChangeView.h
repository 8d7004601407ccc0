#pragma once
// What knocking heads out of a single attention layer (generated weights, a loaded layer) does
// to its output (n x d_model), token by token (core's model::LayerAblation): grey, the norm of
// each position's output intact, ‖output_p‖; red, the norm of its change, ‖output'_p − output_p‖,
// where output' = concat' W_O + b_O is recomputed with the heads' outputs zeroed or replaced by
// their mean. The title names the heads off, the largest change and the relative change; the
// other heads' outputs are not touched (their largest difference, 0, is said too).

#include <memory>

#include "TokenBarStrip.h"
#include "model/AblationLayer.h"

namespace headscope::ui {

class OutputChangeView : public TokenBarStrip {
    Q_OBJECT

public:
    explicit OutputChangeView(QWidget* parent = nullptr);

    // null or no heads off: the view says how to knock one out. tokens: the query tokens' words.
    void setAblation(std::shared_ptr<const model::LayerAblation> ablation, const QStringList& tokens);

    QCPBars* outputBars() const { return first_; }   // ‖output_p‖ keyed by position
    QCPBars* changeBars() const { return second_; }  // ‖Δ output_p‖ keyed by position

protected:
    void refresh() override;
    QString tipAt(int p) const override;

private:
    std::shared_ptr<const model::LayerAblation> ablation_;
};

}  // namespace headscope::ui
