// A model's layer as an Analysis, the single-layer views' input (model/Forward.h).
#include "model/Forward.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "Cost.h"
#include "Spectrum.h"
#include "model/WeightSpectra.h"

namespace headscope::model {

namespace {

// layerAnalysis, with the weight spectra from `cache` when given and the layer's attention when given.
Analysis analyzeLayer(const Model& model, const Trace& trace, int layer, double rank_rtol,
                      const WeightSpectraCache* cache, std::optional<Results> attention = std::nullopt) {
    if (layer < 0 || layer >= static_cast<int>(trace.layers.size()))
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist (the model has " +
                                    std::to_string(trace.layers.size()) + " layers: 0 to " +
                                    std::to_string(int(trace.layers.size()) - 1) + ")");
    const ModelConfig& c = model.config;
    const AttentionOptions& options = trace.options.attention;
    Analysis a;
    Config& config = a.config;
    config.d_model = c.n_embd;
    config.heads = c.n_head;
    config.kv_heads = c.kvHeads();
    config.d_k = config.d_v = c.headDim();
    config.bias = model.blocks[layer].attention.hasBias();
    config.text = model.tokenizer->decode(std::vector<int>(trace.ids.begin(), trace.ids.end()));
    config.seq_len = 0;
    config.source_text.clear();
    config.mask = options.mask;
    config.padded_keys = options.padded_keys;
    config.scale = options.scale;
    config.temperature = options.temperature;
    config.rank_rtol = rank_rtol;

    std::filesystem::path dir = std::filesystem::path(model.directory).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "models/nano-sort/" -> "nano-sort"
    std::string name = dir.filename().string();
    // A snapshot of the Hugging Face cache, .../models--Qwen--Qwen3-0.6B/snapshots/<commit>: the repo id.
    const std::string repo = dir.parent_path().parent_path().filename().string();
    if (dir.parent_path().filename() == "snapshots" && repo.rfind("models--", 0) == 0 && repo.find("--", 8) != std::string::npos)
        name = repo.substr(8).replace(repo.find("--", 8) - 8, 2, "/");
    a.model_name = c.familyName() + " " + name + ", layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer);
    a.shared_weights = model.attentionWeights(layer);  // the paper's layout, one layer
    a.input.query.tokens = trace.tokens;
    a.input.query.X = attentionInput(model, trace, layer);
    a.input.key_value = a.input.query;
    a.input.cross = false;
    // The maps given, or the trace's, or recomputed where the trace dropped them.
    a.results = attention ? std::move(*attention) : layerAttention(model, trace, layer);
    const AttentionOptions layer_options = layerAttentionOptions(model, options, layer, trace.n());
    a.rotary = layer_options.rotary;
    a.sliding_window = layer_options.window;
    a.second_sentence = trace.options.second_sentence;
    a.no_rotation = model.inverse_frequencies.size() > 0 && !layer_options.rotary.enabled();
    a.scale_base = layer_options.scale_base;
    a.softcap = layer_options.softcap;
    const AttentionWeights& stored = model.blocks[std::size_t(layer)].attention;
    if (stored.hasQkNorm())
        a.qk_norm = stored.qk_norm_per_head ? "RMSNorm of each head's q and k before RoPE"
                                            : "RMSNorm of the whole q and k projections before RoPE";
    const auto start = std::chrono::steady_clock::now();
    a.spectra = cache ? *cache->get(layer, rank_rtol) : headSpectra(a.weights(), rank_rtol);
    a.logits = logitsSpectra(a.weights(), a.results, layer_options, rank_rtol);
    a.spectra_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    a.cost = computeCost(config, trace.n(), trace.n());
    return a;
}

}  // namespace

Analysis layerAnalysis(const Model& model, const Trace& trace, int layer, double rank_rtol) {
    return analyzeLayer(model, trace, layer, rank_rtol, nullptr);
}

Analysis layerAnalysis(const Trace& trace, int layer, const WeightSpectraCache& cache, double rank_rtol) {
    return analyzeLayer(cache.model(), trace, layer, rank_rtol, &cache);
}

Analysis layerAnalysis(const Trace& trace, int layer, Results attention, const WeightSpectraCache& cache, double rank_rtol) {
    return analyzeLayer(cache.model(), trace, layer, rank_rtol, &cache, std::move(attention));
}

}  // namespace headscope::model
