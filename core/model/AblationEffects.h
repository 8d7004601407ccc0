#pragma once
// What knocking heads out did, for the views: the log-probability of each actual next token
// before (the intact model) and after (heads off), and each head's direct contribution to the
// intact model's predicted token at the last position, with the final norm's scale frozen from
// the intact run (Attribution.h). Without heads off, before and after are the same run.

#include <string>
#include <vector>

#include "model/Ablation.h"
#include "model/Attribution.h"
#include "model/Forward.h"
#include "model/LogProbs.h"

namespace headscope::model {

struct AblationEffects {
    Ablation ablation;                 // the heads that were off in `current`
    std::vector<std::string> tokens;   // display text of each input token
    bool has_logprobs = false;         // false: the traces hold only the last position's logits; an encoder's text without a mask
    // A masked-LM encoder: no next token, so no attribution; before and after then hold, at each
    // masked position, the intact run's guess and its log-probability with and without the heads.
    bool encoder = false;
    TokenLogProbs before, after;       // empty without has_logprobs
    DirectAttribution attribution;     // of `current`: token and scale from `intact` (empty heads for an encoder)
    std::string predicted;             // display text of attribution.token
    int layers = 0, heads = 0;

    double lossChange() const { return after.loss - before.loss; }
};

// intact: the run without heads off; current: the same input with current.options.ablation
// (the same object when nothing is off). std::invalid_argument when their inputs differ.
AblationEffects ablationEffects(const Model& model, const Trace& intact, const Trace& current);

}  // namespace headscope::model
