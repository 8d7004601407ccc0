#include "model/AblationEffects.h"

#include <cmath>
#include <stdexcept>

namespace headscope::model {

namespace {

// An encoder's guesses at each masked position: the intact run's most probable token there, with
// its log-probability in `run` (top: still the arg-max there); loss: their mean negative.
TokenLogProbs maskedGuesses(const Model& model, const Trace& intact, const Trace& run) {
    TokenLogProbs guesses;
    for (int position : maskedPositions(model, intact)) {
        if (position >= intact.logits.rows() || position >= run.logits.rows()) continue;  // every row is kept for encoders
        Eigen::Index guess = 0, best = 0;
        intact.logits.row(position).maxCoeff(&guess);
        const Eigen::VectorXd logits = run.logits.row(position).transpose().cast<double>();  // (vocab)
        const double top = logits.maxCoeff(&best);
        const double log_sum = top + std::log((logits.array() - top).exp().sum());
        const int id = static_cast<int>(guess);
        guesses.tokens.push_back({position, id,
                                  model.tokenizer->hasId(id) ? model.tokenizer->displayText(id) : unknownToken(id),
                                  logits(guess) - log_sum, best == guess});
        guesses.loss -= guesses.tokens.back().logprob;
    }
    if (!guesses.tokens.empty()) guesses.loss /= double(guesses.tokens.size());
    return guesses;
}

}  // namespace

AblationEffects ablationEffects(const Model& model, const Trace& intact, const Trace& current) {
    if (intact.ids != current.ids) throw std::invalid_argument("the intact and ablated runs read different inputs");
    AblationEffects e;
    e.ablation = current.options.ablation;
    e.tokens = current.tokens;
    e.layers = static_cast<int>(current.layers.size());
    e.heads = model.config.n_head;
    e.encoder = model.config.encoder;
    if (e.encoder) {  // its logits guess masked tokens: no next token to score or attribute
        e.before = maskedGuesses(model, intact, intact);
        e.after = &intact == &current ? e.before : maskedGuesses(model, intact, current);
        e.has_logprobs = !e.before.tokens.empty();
        return e;
    }
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
