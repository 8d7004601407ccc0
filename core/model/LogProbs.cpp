#include "model/LogProbs.h"

#include <cmath>
#include <stdexcept>

namespace headscope::model {

std::string unknownToken(int id) {
    std::string text(1, '<');
    text += std::to_string(id);
    text += '>';
    return text;
}

TokenLogProbs tokenLogProbs(const Model& model, const Trace& trace) {
    const int n = trace.n();
    if (trace.logits.rows() != n)
        throw std::invalid_argument("the log-probability of each token needs the logits of every position "
                                    "(run the model with all_logits)");
    TokenLogProbs result;
    double sum = 0;
    for (int p = 1; p < n; ++p) {
        // logits[p-1] (vocab) -> log-softmax, in double: l_v - max - log sum exp(l - max)
        const Eigen::VectorXd logits = trace.logits.row(p - 1).transpose().cast<double>();
        Eigen::Index best = 0;
        const double top = logits.maxCoeff(&best);
        const double log_sum = std::log((logits.array() - top).exp().sum());
        const int id = trace.ids[p];
        TokenLogProb t;
        t.position = p;
        t.id = id;
        t.token = model.tokenizer->hasId(id) ? model.tokenizer->displayText(id) : unknownToken(id);
        t.logprob = logits(id) - top - log_sum;
        t.top = best == id;
        sum += t.logprob;
        result.tokens.push_back(std::move(t));
    }
    if (n > 1) result.loss = -sum / (n - 1);
    return result;
}

}  // namespace headscope::model
