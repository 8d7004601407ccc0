// Session: knocking heads out of a loaded model or of a single layer. The set lives in the source, so the request the
// worker runs carries it and a newer change replaces a pending one like any other edit.
#include "Session.h"

#include <algorithm>

namespace headscope::ui {

void Session::setAblation(model::Ablation ablation) {
    if (!canAblate()) return;
    // A model's layers and heads, or a single layer (layer 0) with the heads of its weights.
    const int layers = source_.model ? source_.model->config.n_layer : 1;
    const int heads = source_.model ? source_.model->config.n_head : analysis_->weights().heads;
    std::erase_if(ablation.heads, [layers, heads](const model::HeadRef& h) {
        return h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= heads;
    });
    std::sort(ablation.heads.begin(), ablation.heads.end());
    ablation.heads.erase(std::unique(ablation.heads.begin(), ablation.heads.end()), ablation.heads.end());
    if (ablation == source_.ablation) return;
    source_.ablation = std::move(ablation);
    emit ablationChanged();
    setConfig(config_);
}

void Session::knockOut(int layer, int head) {
    model::Ablation a = source_.ablation;
    a.add({layer, head});
    setAblation(std::move(a));
}

void Session::restore(int layer, int head) {
    model::Ablation a = source_.ablation;
    a.remove({layer, head});
    setAblation(std::move(a));
}

void Session::restoreAll() {
    model::Ablation a = source_.ablation;
    a.heads.clear();
    setAblation(std::move(a));
}

void Session::setAblationMode(model::AblationMode mode) {
    model::Ablation a = source_.ablation;
    a.mode = mode;
    setAblation(std::move(a));
}

}  // namespace headscope::ui
