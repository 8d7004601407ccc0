#include "model/AblationEffects.h"

#include <stdexcept>

namespace headscope::model {

AblationEffects ablationEffects(const Model& model, const Trace& intact, const Trace& current) {
    if (intact.ids != current.ids) throw std::invalid_argument("the intact and ablated runs read different inputs");
    AblationEffects e;
    e.ablation = current.options.ablation;
    e.tokens = current.tokens;
    e.layers = static_cast<int>(current.layers.size());
    e.heads = model.config.n_head;
    e.encoder = model.config.encoder;
    if (e.encoder) return e;  // its logits guess masked tokens: no next token to score or attribute
    e.has_logprobs = intact.logits.rows() == intact.n() && current.logits.rows() == current.n();
    if (e.has_logprobs) {
        e.before = tokenLogProbs(model, intact);
        e.after = &intact == &current ? e.before : tokenLogProbs(model, current);
    }
    const DirectAttribution unablated = directAttribution(model, intact);
    e.attribution = &intact == &current ? unablated : directAttribution(model, current, -1, unablated.token, &intact);
    e.predicted = model.tokenizer->hasId(e.attribution.token) ? model.tokenizer->displayText(e.attribution.token)
                                                               : unknownToken(e.attribution.token);
    return e;
}

}  // namespace headscope::model
