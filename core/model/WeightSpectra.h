#pragma once
// The W_QK and W_OV spectra of a loaded model's layers depend on its weights only: computed once
// per layer (and rank tolerance) when a view or a report first asks, and kept for every later
// text, head knocked out or return to the layer. A layer's spectra are small (two vectors of d_k
// singular values per head), so every layer asked for is kept.

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "Analysis.h"
#include "Spectrum.h"

namespace headscope::model {

struct Model;
struct Trace;

class WeightSpectraCache {
public:
    // The model whose layers this caches (never null).
    explicit WeightSpectraCache(std::shared_ptr<const Model> model) : model_(std::move(model)) {}
    WeightSpectraCache(const WeightSpectraCache&) = delete;
    WeightSpectraCache& operator=(const WeightSpectraCache&) = delete;

    // Every head's spectra of `layer`, computed on the first call for (layer, rank_rtol).
    // Thread-safe; std::invalid_argument for a layer the model lacks.
    std::shared_ptr<const std::vector<HeadSpectra>> get(int layer, double rank_rtol) const;
    const Model& model() const { return *model_; }
    long long computed() const;  // layers' spectra computed so far (tests)

private:
    const std::shared_ptr<const Model> model_;
    mutable std::mutex mutex_;
    mutable std::map<std::pair<int, double>, std::shared_ptr<const std::vector<HeadSpectra>>> layers_;
    mutable long long computed_ = 0;
};

// layerAnalysis (Forward.h) of cache.model() with the weight spectra from `cache`; only the
// logits' spectra (which depend on the text) are computed.
Analysis layerAnalysis(const Trace& trace, int layer, const WeightSpectraCache& cache, double rank_rtol = 0);
// The same with the layer's attention given (takeLayerAttention), not read from the trace.
Analysis layerAnalysis(const Trace& trace, int layer, Results attention, const WeightSpectraCache& cache,
                       double rank_rtol = 0);

}  // namespace headscope::model
