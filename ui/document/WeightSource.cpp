#include "WeightSource.h"

#include <algorithm>
#include <stdexcept>

namespace headscope::ui {

Config constrained(const Config& config, const WeightSource& source) {
    Config c = config;
    const Weights* w = source.loaded ? &source.loaded->weights : nullptr;
    if (source.model) {
        const model::ModelConfig& m = source.model->config;
        c.d_model = m.n_embd;
        c.heads = m.n_head;
        c.kv_heads = m.kvHeads();  // grouped-query attention (Llama, Mistral, Qwen2)
        c.d_k = c.d_v = m.headDim();
        c.bias = source.model->blocks.empty() || source.model->blocks[0].attention.hasBias();
        if (!m.encoder) c.source_text.clear();  // a decoder attends to its own tokens; an encoder's second sentence stays
        if (m.encoder) c.mask = MaskKind::None;  // an encoder's queries see every key (padding aside)
        c.seq_len = 0;
    } else if (w) {
        c.d_model = w->dModel();
        c.heads = w->heads;
        c.kv_heads = w->kv_heads;
        c.d_k = w->d_k;
        c.d_v = w->d_v;
        c.bias = w->hasBias();
    }
    return c;
}

std::string sampleText(const model::Model& model) {
    std::vector<int> ids;  // [12]
    for (int i = 0; i < std::min(6, model.config.vocab_size); ++i) ids.push_back(i);
    ids.insert(ids.end(), ids.begin(), ids.end());
    return model.tokenizer->decode(ids);
}

namespace {

// What the pictures of an analysis read, computed on this worker thread: a long input's maps pooled
// (so are those of a layer that kept only its weights, a long input for a large model, whose logits
// would otherwise be computed again for every picture), and every map's extremes (the colour bars).
void preparePictures(Analysis& analysis) {
    const bool logits_kept = analysis.results.heads.empty() || analysis.results.heads.front().logits.size();
    if (std::max(analysis.nQuery(), analysis.nKeyValue()) > kPooledCells || !logits_kept)
        analysis.pooled = std::make_shared<const PooledMaps>(poolMaps(analysis.results, analysis.attentionOptions()));
    analysis.extremes = std::make_shared<const MapExtremes>(
        mapExtremes(analysis.results, analysis.pooled.get(), analysis.attentionOptions()));
}

// The analysis the window shows.
std::shared_ptr<const Analysis> shown(Analysis analysis) {
    preparePictures(analysis);
    return std::make_shared<const Analysis>(std::move(analysis));
}

}  // namespace

SourceResult computeAnalysis(const Config& config, const WeightSource& source, const SourceResult& previous,
                             const ForwardDone& forward_done) {
    SourceResult result;
    if (!source.model) {
        auto analysis = std::make_shared<Analysis>();
        // Before the heatmaps are drawn from it (a long text typed into the demo is pooled too).
        const std::function<void()> before_spectra = [&forward_done, &analysis] {
            preparePictures(*analysis);
            if (forward_done) forward_done(analysis);
        };
        analyzeInto(*analysis, config, false, previous.analysis.get(), source.loaded.get(), before_spectra);
        // Heads off in a single layer: its output recomputed without them (heads the layer no longer has are ignored).
        std::vector<int> off = model::layerHeads(source.ablation);
        std::erase_if(off, [&analysis](int h) { return h >= analysis->weights().heads; });
        if (!off.empty())
            result.layer_ablation = std::make_shared<const model::LayerAblation>(
                model::ablateAttentionLayer(off, source.ablation.mode, analysis->weights(), analysis->results));
        result.analysis = std::move(analysis);
        return result;
    }
    const model::Model& m = *source.model;
    // An encoder reads a sentence pair when the second text is given: the tokenizer's pair template.
    const bool pair = m.config.encoder && !config.source_text.empty();
    text::PairEncoding joined;
    if (pair) joined = m.tokenizer->encodePair(config.text, config.source_text);  // throws with the reason
    const std::vector<int> ids = pair ? joined.ids : m.tokenizer->encode(config.text);  // throws with the character it lacks
    if (ids.empty()) throw std::invalid_argument("the text has no tokens: type some");
    const int n = static_cast<int>(ids.size());
    if (n > m.config.n_positions)
        throw std::invalid_argument("the text is " + std::to_string(n) + " tokens long; this model reads at most " +
                                    std::to_string(m.config.n_positions));
    for (int key : config.padded_keys)
        if (key < 0 || key >= n)
            throw std::invalid_argument("padded key " + std::to_string(key) + " does not exist: the " +
                                        std::to_string(n) + " tokens are numbered 0 to " + std::to_string(n - 1));
    model::ForwardOptions options;
    options.attention = AttentionOptions::from(config);
    if (pair) {
        options.second_sentence = joined.second;
        if (m.config.type_vocab_size > 0) options.token_types = joined.types;  // BERT's segment embeddings
    }
    options.all_logits = double(n) * m.config.n_embd * m.config.vocab_size <= kMaxAllLogitsMacs;
    options.keep_maps = model::traceBytes(m.config, n) <= kMaxKeptMapsBytes;
    const bool same_model = previous.model == source.model;
    const auto reusable = [&](const model::Trace* old, const model::Ablation& ablation) {
        return old && old->ids == ids && old->options.second_sentence == options.second_sentence &&
               old->options.token_types == options.token_types && old->options.attention.mask == options.attention.mask &&
               old->options.attention.padded_keys == options.attention.padded_keys &&
               old->options.attention.temperature == options.attention.temperature &&
               old->options.all_logits == options.all_logits && old->options.ablation == ablation;
    };
    result.model = source.model;
    result.weight_spectra = same_model && previous.weight_spectra ? previous.weight_spectra
                                                                  : std::make_shared<const model::WeightSpectraCache>(source.model);
    // A long forward draws the layer in view as soon as it is done, before the layers after it; that
    // analysis is the result's too (the same numbers: the layers after it change nothing in it).
    std::shared_ptr<const Analysis> early;
    const auto preview = [&](model::ForwardOptions run) {
        if (forward_done && double(n) * m.parameterCount() > kPreviewMacs) {
            run.maps_of_layer = source.layer;  // whole for attention_done; the other layers' dropped head by head
            run.attention_done = [&, keep = run.keep_maps](model::Trace& partial) {
                if (int(partial.layers.size()) != source.layer + 1) return;
                // A trace that drops its maps gives them to the analysis instead of a copy.
                early = shown(keep ? model::layerAnalysis(partial, source.layer, *result.weight_spectra, config.rank_rtol)
                                   : model::layerAnalysis(partial, source.layer, model::takeLayerAttention(partial),
                                                          *result.weight_spectra, config.rank_rtol));
                forward_done(early);  // the layer's MLP and the layers after it still to come
            };
        }
        return run;
    };
    // The intact run, then (with heads off) the ablated one: each reused when its input is unchanged.
    const model::Ablation none;
    if (same_model && reusable(previous.intact.get(), none)) {
        result.intact = previous.intact;
    } else {
        result.intact = std::make_shared<const model::Trace>(
            model::runModel(m, ids, source.ablation.empty() ? preview(options) : options));
    }
    if (source.ablation.empty()) {
        result.trace = result.intact;
    } else if (same_model && reusable(previous.trace.get(), source.ablation)) {
        result.trace = previous.trace;
    } else {
        options.ablation = source.ablation;
        result.trace = std::make_shared<const model::Trace>(model::runModel(m, ids, preview(options)));
    }
    const bool same_runs = previous.trace == result.trace && previous.intact == result.intact;
    if (m.config.encoder && same_runs) {  // fill-mask: the guesses at every masked position
        result.fill_mask = previous.fill_mask;
    } else if (m.config.encoder) {
        for (int position : model::maskedPositions(m, *result.trace))
            result.fill_mask.push_back({position, model::topTokensAt(m, *result.trace, position, 10)});
    } else {
        result.next_tokens = same_runs ? previous.next_tokens : model::topNextTokens(m, *result.trace, 10);
    }
    result.effects = same_runs && previous.effects ? previous.effects
                                                  : std::make_shared<const model::AblationEffects>(
                                                        model::ablationEffects(m, *result.intact, *result.trace));
    // Only the run shown is previewed (the ablated one when heads are off).
    result.analysis = early ? early : shown(model::layerAnalysis(*result.trace, source.layer, *result.weight_spectra, config.rank_rtol));
    return result;
}

}  // namespace headscope::ui
