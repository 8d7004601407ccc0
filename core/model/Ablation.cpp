#include "model/Ablation.h"

#include <algorithm>
#include <stdexcept>

namespace headscope::model {

const char* toString(AblationMode mode) { return mode == AblationMode::Mean ? "mean" : "zero"; }

std::string toString(const HeadRef& head) { return std::to_string(head.layer) + "." + std::to_string(head.head); }

bool Ablation::contains(int layer, int head) const {
    return std::binary_search(heads.begin(), heads.end(), HeadRef{layer, head});
}

void Ablation::add(HeadRef head) {
    const auto at = std::lower_bound(heads.begin(), heads.end(), head);
    if (at == heads.end() || *at != head) heads.insert(at, head);
}

void Ablation::remove(HeadRef head) {
    const auto at = std::lower_bound(heads.begin(), heads.end(), head);
    if (at != heads.end() && *at == head) heads.erase(at);
}

void checkAblation(const Ablation& ablation, int n_layer, int n_head) {
    for (const HeadRef& h : ablation.heads) {
        if (h.layer < 0 || h.layer >= n_layer)
            throw std::invalid_argument("cannot knock out head " + toString(h) + ": the model has layers 0 to " +
                                        std::to_string(n_layer - 1));
        if (h.head < 0 || h.head >= n_head)
            throw std::invalid_argument("cannot knock out head " + toString(h) + ": each layer has heads 0 to " +
                                        std::to_string(n_head - 1));
    }
}

namespace {
// The knocked-out heads' outputs of `layer` replaced in results.heads and results.concat;
// false when none of them is in this layer.
bool replaceHeadOutputs(const Ablation& ablation, int layer, int d_v, Results& results) {
    bool changed = false;
    for (const HeadRef& h : ablation.heads) {
        if (h.layer != layer) continue;
        Eigen::MatrixXf& out = results.heads[h.head].output;  // (n, d_v)
        if (ablation.mode == AblationMode::Zero) {
            out.setZero();
        } else {
            const Eigen::RowVectorXf mean = out.colwise().mean();  // (d_v)
            out.rowwise() = mean;
        }
        results.concat.middleCols(Eigen::Index(h.head) * d_v, d_v) = out;  // (n, h*d_v)
        changed = true;
    }
    return changed;
}
}  // namespace

void ablateLayer(const Ablation& ablation, int layer, const Weights& weights, Results& results) {
    if (!replaceHeadOutputs(ablation, layer, weights.d_v, results)) return;
    // output (n, d_model) = concat (n, h*d_v) W_O (h*d_v, d_model) + b_O
    results.output.noalias() = results.concat * weights.W_O;
    if (weights.hasBias()) results.output.rowwise() += weights.b_O;
}

void ablateLayer(const Ablation& ablation, int layer, const AttentionWeights& weights, Results& results) {
    if (!replaceHeadOutputs(ablation, layer, weights.d_v, results)) return;
    // output (n, d_model) = concat (n, h*d_v) W_O^T (h*d_v, d_model) + b_O, W_O as stored
    weights.W_O.apply(results.concat, weights.b_O, results.output, false);
}

std::vector<std::string> splitHeadList(const std::string& text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string part = text.substr(start, comma - start);
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        start = comma + 1;
        if (part.empty()) continue;
        parts.push_back(std::move(part));
    }
    return parts;
}

std::vector<HeadRef> parseHeadList(const std::string& text) {
    std::vector<HeadRef> heads;
    for (const std::string& part : splitHeadList(text)) {
        const std::size_t dot = part.find('.');
        const auto digits = [](const std::string& s) {
            return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (dot == std::string::npos || !digits(part.substr(0, dot)) || !digits(part.substr(dot + 1)))
            throw std::invalid_argument("'" + part + "' is not a head: write LAYER.HEAD, e.g. 1.2");
        heads.push_back({std::stoi(part.substr(0, dot)), std::stoi(part.substr(dot + 1))});
    }
    if (heads.empty()) throw std::invalid_argument("no head given: write LAYER.HEAD, e.g. 1.2,1.3");
    return heads;
}

}  // namespace headscope::model
