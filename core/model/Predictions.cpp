// What a run predicts (declared in Forward.h): the likeliest tokens at a position, an encoder's
// masked positions, and a greedy continuation.
#include "model/Forward.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace headscope::model {

std::vector<NextToken> topNextTokens(const Model& model, const Trace& trace, int k) {
    return topTokensAt(model, trace, trace.n() - 1, k);
}

std::vector<NextToken> topTokensAt(const Model& model, const Trace& trace, int position, int k) {
    // The logits hold every position's row (all_logits, encoders) or the last one's alone.
    const Eigen::Index row = trace.logits.rows() == trace.n() ? position : position == trace.n() - 1 ? trace.logits.rows() - 1 : -1;
    if (position < 0 || position >= trace.n() || row < 0 || row >= trace.logits.rows())
        throw std::invalid_argument("the run holds no logits for position " + std::to_string(position));
    const Eigen::VectorXd logits = trace.logits.row(row).transpose().cast<double>();  // (vocab)
    const double top = logits.maxCoeff();
    const Eigen::VectorXd p = (logits.array() - top).exp().matrix();
    const double sum = p.sum();
    std::vector<int> order(static_cast<std::size_t>(logits.size()));
    std::iota(order.begin(), order.end(), 0);
    k = std::clamp(k, 0, static_cast<int>(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int a, int b) { return logits(a) > logits(b) || (logits(a) == logits(b) && a < b); });
    std::vector<NextToken> next;
    for (int i = 0; i < k; ++i) {
        const int id = order[i];
        next.push_back({id, model.tokenizer->hasId(id) ? model.tokenizer->displayText(id) : "<" + std::to_string(id) + ">",
                        p(id) / sum});
    }
    return next;
}

std::vector<int> maskedPositions(const Model& model, const Trace& trace) {
    std::vector<int> positions;
    if (!model.config.encoder) return positions;
    for (int i = 0; i < trace.n(); ++i) {
        const int id = trace.ids[std::size_t(i)];
        if (!model.tokenizer->hasId(id)) continue;
        const std::string text = model.tokenizer->displayText(id);
        if (text == "[MASK]" || text == "<mask>") positions.push_back(i);
    }
    return positions;
}

std::vector<int> greedyContinuation(const Model& model, std::vector<int> ids, int steps,
                                    const ForwardOptions& options) {
    ForwardOptions last_only = options;
    last_only.all_logits = false;
    std::vector<int> added;
    for (int step = 0; step < steps && static_cast<int>(ids.size()) <= model.config.n_positions; ++step) {
        const Trace trace = runModel(model, ids, last_only);
        Eigen::Index best = 0;
        trace.logits.row(0).maxCoeff(&best);
        ids.push_back(static_cast<int>(best));
        added.push_back(static_cast<int>(best));
    }
    return added;
}

}  // namespace headscope::model
