// Session: knocking a loaded model's heads out. The set lives in the source, so the request the
// worker runs carries it and a newer change replaces a pending one like any other edit.
#include "Session.h"

#include <algorithm>

namespace headscope::ui {

void Session::setAblation(model::Ablation ablation) {
    if (!source_.model) return;
    const model::ModelConfig& c = source_.model->config;
    std::erase_if(ablation.heads, [&c](const model::HeadRef& h) {
        return h.layer < 0 || h.layer >= c.n_layer || h.head < 0 || h.head >= c.n_head;
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
