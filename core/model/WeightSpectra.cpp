#include "model/WeightSpectra.h"

#include <stdexcept>
#include <string>

#include "model/Model.h"

namespace headscope::model {

std::shared_ptr<const std::vector<HeadSpectra>> WeightSpectraCache::get(int layer, double rank_rtol) const {
    const int layers = static_cast<int>(model_->blocks.size());
    if (layer < 0 || layer >= layers)
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist (the model has " +
                                    std::to_string(layers) + " layers)");
    {
        const std::lock_guard lock(mutex_);
        if (const auto found = layers_.find({layer, rank_rtol}); found != layers_.end()) return found->second;
    }
    // The layer's paper layout made for the spectra alone and dropped (not kept in the model's
    // cache of layers), computed outside the lock: two threads asking for one new layer at once
    // both compute it, the first kept.
    auto spectra = std::make_shared<const std::vector<HeadSpectra>>(
        headSpectra(model_->blocks[std::size_t(layer)].attention.toWeights(), rank_rtol));
    const std::lock_guard lock(mutex_);
    ++computed_;
    return layers_.emplace(std::pair{layer, rank_rtol}, std::move(spectra)).first->second;
}

long long WeightSpectraCache::computed() const {
    const std::lock_guard lock(mutex_);
    return computed_;
}

}  // namespace headscope::model
