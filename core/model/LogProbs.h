#pragma once
// How well the model predicts the input itself: for each position p >= 1, the
// log-probability the model gave the token that actually comes there, from the logits at p - 1:
//   logprob_p = logits[p-1, ids[p]] - log sum_v exp(logits[p-1, v])    (log-softmax, in double)
//   loss = -(1 / (n-1)) sum_{p=1}^{n-1} logprob_p                      (mean negative log-likelihood)
// so sum_p logprob_p = -(n-1) loss: the language-modelling loss of the input.

#include <string>
#include <vector>

#include "model/Forward.h"

namespace headscope::model {

struct TokenLogProb {
    int position = 0;  // of the token predicted (1 .. n-1)
    int id = 0;        // the token there
    std::string token; // its display text
    double logprob = 0;
    bool top = false;  // it was the model's most probable next token (arg-max of the logits)
};

struct TokenLogProbs {
    std::vector<TokenLogProb> tokens;  // n - 1 entries; none for a one-token input
    double loss = 0;                   // mean negative log-likelihood; 0 when nothing is predicted
};

// "<id>": the display text of an id the tokenizer lacks.
std::string unknownToken(int id);

// The trace must hold every position's logits (ForwardOptions::all_logits); std::invalid_argument
// otherwise.
TokenLogProbs tokenLogProbs(const Model& model, const Trace& trace);

}  // namespace headscope::model
