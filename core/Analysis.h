#pragma once
// Everything HeadScope shows about one configuration, computed in one place:
// Config -> Weights -> Input -> forward Results -> spectra, ranks, costs, equivalence.
// The CLI's info/export and the GUI's Session both call analyze(); views only read.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "Config.h"
#include "Cost.h"
#include "Downsample.h"
#include "Engine.h"
#include "Input.h"
#include "Spectrum.h"
#include "Weights.h"

namespace headscope {

// The last head whose logits an analysis computed again (Analysis::headLogits): a copy starts empty.
class RecomputedLogits {
public:
    RecomputedLogits() = default;
    RecomputedLogits(const RecomputedLogits&) {}
    RecomputedLogits& operator=(const RecomputedLogits&) {
        std::lock_guard lock(mutex_);
        head_ = -1, map_.reset();
        return *this;
    }
    // The map of `head`, made by make() unless it is the one kept.
    template <class Make>
    std::shared_ptr<const Eigen::MatrixXf> get(int head, Make&& make) const {
        std::lock_guard lock(mutex_);
        if (head_ != head || !map_) map_ = std::make_shared<const Eigen::MatrixXf>(make()), head_ = head;
        return map_;
    }
    // The map of `head` if it is the one kept, else null: nothing is computed.
    std::shared_ptr<const Eigen::MatrixXf> find(int head) const {
        std::lock_guard lock(mutex_);
        return head_ == head ? map_ : nullptr;
    }

private:
    mutable std::mutex mutex_;
    mutable int head_ = -1;
    mutable std::shared_ptr<const Eigen::MatrixXf> map_;
};

struct Analysis {
    Config config;
    // Immutable and shared: an analysis of the same weights (new text, temperature or mask)
    // points at those of the one before instead of copying them (9.4 MB at BERT-base).
    std::shared_ptr<const Weights> shared_weights = std::make_shared<const Weights>();
    Input input;
    Results results;
    std::vector<HeadSpectra> spectra;   // per head: W_QK and W_OV
    std::vector<Spectrum> logits;       // per head: spectrum/rank of Q_i K_i^T (n_q, n_kv)
    Cost cost;
    std::optional<Equivalence> equivalence;  // absent until computed (it costs O(n d^2) a head)
    // A long input's maps pooled for pictures (Downsample.h), computed with the window's analysis
    // where a side is longer than kPooledCells (ui's computeAnalysis); null otherwise.
    std::shared_ptr<const PooledMaps> pooled;
    // Each head's largest weight and |logit| (Downsample.h), computed with the window's analysis on its
    // worker (ui's computeAnalysis); null otherwise, and the pictures then read the maps.
    std::shared_ptr<const MapExtremes> extremes;
    // Bytes of every head's logits and weights (n_q x n_kv each): what a copy of the results costs.
    double mapBytes() const { return 8.0 * double(results.heads.size()) * nQuery() * nKeyValue(); }
    // Empty when the weights were generated from the config (random, untrained); otherwise
    // what they were loaded from, e.g. "GPT-2 nano-sort, layer 1 of 3" (model/Forward.h).
    std::string model_name;
    // A rotary model's layer: the rotation its results were computed with (Results.Q and K
    // are rotated); addEquivalence applies it too. Empty for everything else.
    Rotary rotary;
    // A model layer's attention beyond the config, as its results were computed (0: none):
    // a sliding window (Mistral, Gemma's local layers; results.allowed holds it), the number
    // under the score's square root (Gemma's query_pre_attn_scalar; 0: d_k) and the logits'
    // softcap (Gemma 2). qk_norm names how q and k were normalised before the score (Qwen3,
    // Gemma 3: per head; OLMo 2: over the whole projection), "" when they were not: then no
    // W_QK,i alone gives the logits, and the equivalence is not checked.
    int sliding_window = 0;
    bool no_rotation = false;  // a layer of a rotary model that does not rotate (SmolLM3's NoPE layers)
    double scale_base = 0;
    double softcap = 0;
    std::string qk_norm;
    // An encoder's sentence pair: the first position of the second sentence (its border is drawn
    // across the heatmaps); -1 for one text.
    int second_sentence = -1;

    RecomputedLogits recomputed_logits;  // headLogits()'s

    // Wall-clock milliseconds of each stage.
    double weights_ms = 0, input_ms = 0, forward_ms = 0, spectra_ms = 0, equivalence_ms = 0;

    const Weights& weights() const { return *shared_weights; }
    // The options the results were computed with: config's mask, padding, scale and temperature,
    // with the rotary, window, scale base and softcap above.
    AttentionOptions attentionOptions() const;
    // Head h's logits (n_q, n_kv): its kept map, or where the layer kept only the weights (a long
    // input) the same numbers computed again from results.Q and K (n_q n_kv d_k multiply-adds; the
    // last such head is kept, so asking again for it costs nothing). Safe from any thread.
    std::shared_ptr<const Eigen::MatrixXf> headLogits(int head) const;
    // Rows [row, row + rows) and columns [col, col + cols) of head h's logits, the same numbers as
    // headLogits(head): read from the kept map, or computed again for the window only (the tiles
    // that cover it, core/Logits.h: a cell of a 2,048-token head in 0.1 ms instead of its whole map's
    // 7 ms), so that a view can ask for what it shows from the GUI thread. Safe from any thread.
    Eigen::MatrixXf logitsWindow(int head, int row, int col, int rows, int cols) const;
    float logitAt(int head, int row, int col) const { return logitsWindow(head, row, col, 1, 1)(0, 0); }
    void setWeights(Weights w) { shared_weights = std::make_shared<const Weights>(std::move(w)); }

    int nQuery() const { return static_cast<int>(input.query.tokens.size()); }
    int nKeyValue() const { return static_cast<int>(input.key_value.tokens.size()); }
};

// config must be valid (config.validate() empty). When `previous` has the same weights
// (Config::sameWeights), its weights, and spectra if rank_rtol agrees too, are reused
// instead of recomputed: editing the text or the temperature only runs the forward pass.
// Its input is reused too when the text, seed and d_model agree (Config::sameInput).
// weights, when given, replace the generated ones (a layer loaded from a file, e.g. an
// nn.MultiheadAttention state dict); config's geometry must match them, and model_name names them.
struct LoadedWeights {
    Weights weights;
    std::string name;  // e.g. "PyTorch layer attn.safetensors"
};
Analysis analyze(const Config& config, bool with_equivalence = true, const Analysis* previous = nullptr,
                 const LoadedWeights* weights = nullptr);

// analyze() into `a` (whatever it held is replaced). before_spectra is called once the forward
// pass is done, before the weights' spectra (computed or reused) and the logits' spectra
// (always computed, 0.4 ms at BERT-base with 16 tokens): from then on
// this writes only a.spectra, a.logits, a.spectra_ms and (with_equivalence) a.equivalence and
// a.equivalence_ms, so another thread may meanwhile read every other member of `a`; e.g. the
// GUI draws the heatmaps while the spectra are computed.
void analyzeInto(Analysis& a, const Config& config, bool with_equivalence, const Analysis* previous,
                 const LoadedWeights* weights, const std::function<void()>& before_spectra = {});

// True when a and b show the same weights (so spectra and circuits drawn for one stand for the other).
bool sameLayer(const Analysis& a, const Analysis& b);

// Singular values and rank of each head's unmasked logits Q_i K_g^T * factor (n_q, n_kv),
// from the thin factors; heads in parallel for large inputs. Shared by analyze() and by
// the analysis of one layer of a loaded model (model/Forward.h).
std::vector<Spectrum> logitsSpectra(const Weights& weights, const Results& results, const AttentionOptions& options,
                                    double rank_rtol = 0);

// Second stage, for callers that showed the rest first. With a stop flag, setting it makes the
// check end early by throwing EquivalenceStopped (Engine.h).
void addEquivalence(Analysis& analysis, const std::atomic<bool>* stop = nullptr);

}  // namespace headscope
