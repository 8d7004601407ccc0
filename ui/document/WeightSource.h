#pragma once
// Where the document's weights come from, and the one function the analysis worker runs:
//  - generated from the config (random, untrained; the default),
//  - a loaded nn.MultiheadAttention layer (its geometry fixed, the input text live),
//  - a loaded GPT-2 model: the text is tokenised with the model's BPE, the whole forward pass
//    runs (every layer's attention), and the chosen layer is shown as an Analysis.
// Pure C++ (no Qt): it runs on the worker thread with only immutable inputs.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Analysis.h"
#include "model/AblationEffects.h"
#include "model/AblationLayer.h"
#include "model/Forward.h"
#include "model/Model.h"
#include "model/WeightSpectra.h"

namespace headscope::ui {

struct WeightSource {
    model::ModelPtr model;                      // a GPT-2 model, or null
    int layer = 0;                              // the model's layer shown
    std::shared_ptr<const LoadedWeights> loaded;  // a loaded attention layer, or null
    model::Ablation ablation;                   // heads knocked out (a single layer's are layer 0's)

    bool generated() const { return !model && !loaded; }
    bool operator==(const WeightSource&) const = default;
};

// An encoder's guesses at one masked position (fill-mask).
struct MaskedGuesses {
    int position = 0;
    std::vector<model::NextToken> tokens;  // most probable first
};

struct SourceResult {
    std::shared_ptr<const Analysis> analysis;
    std::shared_ptr<const model::Trace> trace;       // GPT-2 only: every layer
    model::ModelPtr model;                           // the model the trace was computed with
    // Decoders only: the top 10 after the last token.
    std::vector<model::NextToken> next_tokens;
    // Encoders only: the top 10 at each masked position, in text order (none without a mask token).
    std::vector<MaskedGuesses> fill_mask;
    std::shared_ptr<const model::Trace> intact;      // GPT-2 only: the run without heads off (== trace when none are)
    std::shared_ptr<const model::AblationEffects> effects;  // GPT-2 only: log-probabilities, attribution
    // Models only: the layers' weight spectra computed so far, handed on while the model stays.
    std::shared_ptr<const model::WeightSpectraCache> weight_spectra;
    // Generated weights or a loaded layer with heads off: the layer's output before and after.
    std::shared_ptr<const model::LayerAblation> layer_ablation;
};

// Every position's logits (for the per-token log-probabilities) are computed while
// n * d_model * vocab stays under this many multiply-adds (GPT-2 small: about 100 tokens).
constexpr double kMaxAllLogitsMacs = 4e9;

// A model's forward of more multiply-adds than this (tokens x parameters: Llama 3.2 1B from about
// 16 tokens, BERT-base from 180) shows the layer in view as soon as its block is done (ForwardDone).
constexpr double kPreviewMacs = 2e10;

// The equivalence of the three paths is checked on a copy of the analysis (Session): not where the
// layer's maps take more than this (GPT-2 small beyond about 1,670 tokens, Llama 3.2 1B beyond 1,024).
constexpr double kMaxEquivalenceMapBytes = 256.0 * 1024 * 1024;

// Every layer's attention maps are kept while they take at most this many bytes (model::traceBytes:
// GPT-2 small up to about 570 tokens, Llama 3.2 1B up to 260); a longer input keeps the layer in
// view's alone, recomputed from the trace (model::layerAttention), and small copies of the rest
// for the Model tab.
constexpr double kMaxKeptMapsBytes = 512.0 * 1024 * 1024;

// The config as the source fixes it: a model or loaded layer sets d_model, heads, d_k, d_v,
// kv_heads and biases; everything else (text, mask, temperature, rank tolerance) is kept.
Config constrained(const Config& config, const WeightSource& source);

// A text every model's vocabulary encodes: its first six tokens, twice (a repeat shows induction heads).
std::string sampleText(const model::Model& model);

// Runs on the worker. previous: the last result (its traces are reused when only the layer, the
// rank tolerance or, for the intact run, the heads off changed; a model's weight spectra whatever
// changed but the model). With heads off the model runs twice:
// intact and ablated. Throws std::exception with one sentence on bad input (text the
// vocabulary cannot encode, too many tokens, a padded key past the end).
// forward_done, for generated or loaded weights whose spectra must be computed, receives the
// analysis as soon as its forward pass is done; its spectra and logits spectra are being filled
// in meanwhile (analyzeInto): a receiver reads only its config, input, weights and results.
// For a model whose forward exceeds kPreviewMacs it receives the layer in view's whole analysis
// as soon as that block is done, while the later blocks and the logits are computed.
using ForwardDone = std::function<void(std::shared_ptr<const Analysis>)>;
SourceResult computeAnalysis(const Config& config, const WeightSource& source, const SourceResult& previous,
                             const ForwardDone& forward_done = {});

}  // namespace headscope::ui
