#include "model/AblationLayer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace headscope::model {

LayerAblation ablateAttentionLayer(const std::vector<int>& heads, AblationMode mode, const Weights& weights,
                                   const Results& intact) {
    LayerAblation a;
    a.mode = mode;
    Ablation ablation;
    ablation.mode = mode;
    for (int h : heads) {
        if (h < 0 || h >= weights.heads)
            throw std::invalid_argument("cannot knock out head " + std::to_string(h) + ": the layer has heads 0 to " +
                                        std::to_string(weights.heads - 1));
        ablation.add({0, h});
    }
    for (const HeadRef& h : ablation.heads) a.heads.push_back(h.head);
    Results changed = intact;  // the heads' outputs, concat and output replaced; patterns kept
    ablateLayer(ablation, 0, weights, changed);
    a.before = intact.output;  // (n, d_model)
    a.after = changed.output;  // (n, d_model)
    const Eigen::MatrixXd delta = (a.after - a.before).cast<double>();  // (n, d_model)
    a.change = delta.rowwise().norm();                                  // (n)
    a.before_norm = a.before.cast<double>().rowwise().norm();           // (n)
    a.max_change = a.change.size() ? a.change.maxCoeff() : 0.0;
    const double scale = a.before.cast<double>().norm();
    a.relative_change = scale > 0 ? delta.norm() / scale : 0.0;
    for (int i = 0; i < weights.heads; ++i) {
        if (std::binary_search(a.heads.begin(), a.heads.end(), i)) continue;
        const auto& out = changed.heads[std::size_t(i)].output;
        if (out.size())
            a.other_heads_max_difference = std::max<double>(
                a.other_heads_max_difference, (out - intact.heads[std::size_t(i)].output).cwiseAbs().maxCoeff());
    }
    return a;
}

std::vector<int> layerHeads(const Ablation& ablation) {
    std::vector<int> heads;
    for (const HeadRef& h : ablation.heads)
        if (h.layer == 0) heads.push_back(h.head);
    return heads;
}

std::vector<int> parseLayerHeadList(const std::string& text) {
    std::vector<int> heads;
    for (const std::string& part : splitHeadList(text)) {
        if (part.find('.') != std::string::npos) {
            const std::vector<HeadRef> ref = parseHeadList(part);  // throws for what is not L.H
            if (ref[0].layer != 0)
                throw std::invalid_argument("'" + part + "' names layer " + std::to_string(ref[0].layer) +
                                            ", but this is a single layer: write the head alone, e.g. 1");
            heads.push_back(ref[0].head);
            continue;
        }
        if (part.size() > 6 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw std::invalid_argument("'" + part + "' is not a head number: write e.g. 0,2");
        heads.push_back(std::stoi(part));
    }
    if (heads.empty()) throw std::invalid_argument("no head given: write head numbers, e.g. 0,2");
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    return heads;
}

}  // namespace headscope::model
