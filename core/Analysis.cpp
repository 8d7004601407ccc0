#include "Analysis.h"

#include <chrono>
#include <stdexcept>

#include "Logits.h"
#include "Parallel.h"

namespace headscope {

namespace {
template <typename F>
double timedMs(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

bool sameLayer(const Analysis& a, const Analysis& b) {
    return a.model_name == b.model_name && a.config.sameWeights(b.config);
}

Analysis analyze(const Config& config, bool with_equivalence, const Analysis* previous, const LoadedWeights* loaded) {
    Analysis a;
    analyzeInto(a, config, with_equivalence, previous, loaded);
    return a;
}

void analyzeInto(Analysis& a, const Config& config, bool with_equivalence, const Analysis* previous,
                 const LoadedWeights* loaded, const std::function<void()>& before_spectra) {
    a = Analysis{};
    a.config = config;
    if (loaded) a.model_name = loaded->name;
    const bool same_weights = previous && previous->model_name == a.model_name && previous->config.sameWeights(config);
    a.weights_ms = timedMs([&] {
        if (same_weights)
            a.shared_weights = previous->shared_weights;  // shared, not copied
        else
            a.setWeights(loaded ? loaded->weights : makeWeights(config));
    });
    a.input_ms = timedMs([&] { a.input = previous && previous->config.sameInput(config) ? previous->input : makeInput(config); });
    a.forward_ms = timedMs([&] { a.results = forward(config, a.weights(), a.input); });
    // Validation bounds every knob, so this is a last guard: never show NaN as numbers.
    if (!a.results.output.allFinite())
        throw std::runtime_error("the attention output overflowed float32 (not a finite number): "
                                 "use a larger temperature or smaller weights");
    a.cost = computeCost(config, a.nQuery(), a.nKeyValue());
    const bool same_spectra = same_weights && previous->config.rank_rtol == config.rank_rtol;
    if (before_spectra) before_spectra();
    a.spectra_ms = timedMs([&] {
        a.spectra = same_spectra ? previous->spectra : headSpectra(a.weights(), config.rank_rtol);
        a.logits = logitsSpectra(a.weights(), a.results, AttentionOptions::from(config), config.rank_rtol);
    });
    if (with_equivalence) addEquivalence(a);
}

std::vector<Spectrum> logitsSpectra(const Weights& w, const Results& r, const AttentionOptions& options,
                                    double rank_rtol) {
    // Rank of each head's (unmasked) logits: the product Q_i K_g^T of thin factors.
    const int d_k = w.d_k;
    const double factor = options.logitFactor(d_k);
    std::vector<Spectrum> spectra(w.heads);
    parallelFor(w.heads, [&](int i) {
        const int g = w.kvHeadOf(i);
        spectra[i] = productSpectrum(r.Q.middleCols(i * d_k, d_k).cast<double>(),
                                     r.K.middleCols(g * d_k, d_k).cast<double>(), rank_rtol);
        spectra[i].singular_values *= factor;
        spectra[i].tolerance *= factor;
    }, r.Q.rows() * r.K.rows() > 4096);
    return spectra;
}

AttentionOptions Analysis::attentionOptions() const {
    AttentionOptions options = AttentionOptions::from(config);
    options.rotary = rotary;
    options.window = sliding_window;
    options.scale_base = scale_base;
    options.softcap = softcap;
    return options;
}

std::shared_ptr<const Eigen::MatrixXf> Analysis::headLogits(int head) const {
    if (head < 0 || head >= static_cast<int>(results.heads.size()))
        throw std::invalid_argument("head " + std::to_string(head) + " does not exist (the layer has " +
                                    std::to_string(results.heads.size()) + ")");
    const Eigen::MatrixXf& kept = results.heads[std::size_t(head)].logits;
    if (kept.size()) return {std::shared_ptr<void>(), &kept};  // not owned: this analysis'
    return recomputed_logits.get(head, [&] { return headscope::headLogits(attentionOptions(), results, head); });
}

Eigen::MatrixXf Analysis::logitsWindow(int head, int row, int col, int rows, int cols) const {
    if (head < 0 || head >= static_cast<int>(results.heads.size()))
        throw std::invalid_argument("head " + std::to_string(head) + " does not exist (the layer has " +
                                    std::to_string(results.heads.size()) + ")");
    const Eigen::MatrixXf& kept = results.heads[std::size_t(head)].logits;
    const std::shared_ptr<const Eigen::MatrixXf> recomputed = kept.size() ? nullptr : recomputed_logits.find(head);
    const Eigen::MatrixXf& map = kept.size() ? kept : recomputed ? *recomputed : kept;
    if (map.size() == 0) return headscope::headLogitsWindow(attentionOptions(), results, head, row, col, rows, cols);
    checkLogitsWindow(map.rows(), map.cols(), row, col, rows, cols);
    return map.block(row, col, rows, cols);
}

void addEquivalence(Analysis& a, const std::atomic<bool>* stop) {
    // q and k normalised before the score (Qwen3, Gemma 3, OLMo 2): the per-head and merged
    // paths through W_i^Q and W_QK,i leave the norm out, so they cannot give these logits.
    if (!a.qk_norm.empty()) return;
    a.equivalence_ms = timedMs([&] {
        const AttentionOptions options = a.attentionOptions();
        a.equivalence = checkEquivalence(options, a.weights(), a.input.query.X,
                                         a.input.key_value.X, a.results, stop);
    });
}

}  // namespace headscope
