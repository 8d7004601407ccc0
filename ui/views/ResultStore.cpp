#include "ResultStore.h"

namespace headscope::ui {

namespace {
// How many results of a kind stay cached: enough to go back to the last few heads or cells
// without recomputing; each key keeps its analysis alive, so not more.
constexpr std::size_t kKept = 8;
constexpr std::size_t kKeptLarge = 4;  // the d_model x d_model kinds
bool sameSequence(const Sequence& a, const Sequence& b) {
    return a.tokens == b.tokens && a.X.rows() == b.X.rows() && a.X.cols() == b.X.cols() &&
           (a.X.array() == b.X.array()).all();
}

bool sameRotary(const Rotary& a, const Rotary& b) {
    return a.inverse_frequencies.size() == b.inverse_frequencies.size() &&
           (a.inverse_frequencies.array() == b.inverse_frequencies.array()).all() &&
           a.query_positions == b.query_positions && a.key_positions == b.key_positions;
}
// The analysis a lane's key was computed for (every lane but the circuits' has it first).
template <typename Rest>
const AnalysisKey& analysisKeyOf(const std::pair<AnalysisKey, Rest>& key) {
    return key.first;
}
template <typename... Rest>
const AnalysisKey& analysisKeyOf(const std::tuple<AnalysisKey, Rest...>& key) {
    return std::get<0>(key);
}
}  // namespace

bool AnalysisKey::operator==(const AnalysisKey& other) const {
    const Analysis *a = analysis.get(), *b = other.analysis.get();
    if (a == b) return true;
    if (!a || !b || a->shared_weights != b->shared_weights) return false;
    const AttentionOptions x = a->attentionOptions(), y = b->attentionOptions();
    return x.mask == y.mask && x.padded_keys == y.padded_keys && x.scale == y.scale && x.temperature == y.temperature &&
           x.window == y.window && x.scale_base == y.scale_base && x.softcap == y.softcap &&
           a->config.rank_rtol == b->config.rank_rtol && sameRotary(a->rotary, b->rotary) &&
           a->input.cross == b->input.cross && sameSequence(a->input.query, b->input.query) &&
           sameSequence(a->input.key_value, b->input.key_value);
}

ResultStore::ResultStore(QObject* parent)
    : QObject(parent),
      circuits_(arrived(Kind::Circuits), finished(), kKeptLarge),
      maps_(arrived(Kind::QueryKeyMap), finished(), kKept),
      breakdowns_(arrived(Kind::ScoreBreakdown), finished(), kKept),
      products_(arrived(Kind::ProjectionProduct), finished(), kKept),
      curves_(arrived(Kind::LogitCurve), finished(), kKept),
      rotary_(arrived(Kind::RotaryDelta), finished(), kKeptLarge),
      lines_(arrived(Kind::TokenLines), finished(), kKept),
      patterns_(arrived(Kind::HeadPatterns), finished(), kKept) {
    qRegisterMetaType<headscope::ui::ResultStore::Kind>("headscope::ui::ResultStore::Kind");
}

ResultStore::~ResultStore() = default;

std::function<void()> ResultStore::arrived(Kind kind) {
    return [this, kind]() { emit ready(kind); };
}

std::function<void()> ResultStore::finished() {
    return [this]() { emit jobFinished(); };
}

// Worker threads below: each job reads only the analysis it captured (immutable, shared).

ResultStore::Result<model::Trace> ResultStore::layerPatterns(const AnalysisPtr& analysis) {
    return patterns_.get({{analysis}, analysis->second_sentence}, [analysis]() { return model::layerPatterns(*analysis); });
}

ResultStore::Result<TokenLineSet> ResultStore::tokenLines(const AnalysisPtr& analysis, const std::vector<int>& heads,
                                                           TokenLineSentences sentences) {
    return lines_.get({{analysis}, heads, sentences, analysis->second_sentence},
                      [analysis, heads, sentences]() { return chooseTokenLines(*analysis, heads, sentences); });
}

ResultStore::Result<Circuits> ResultStore::circuits(const AnalysisPtr& analysis, int head) {
    const std::shared_ptr<const Weights> weights = analysis->shared_weights;
    return circuits_.get({weights, head}, [weights, head]() { return headCircuits(*weights, head); });
}

ResultStore::Result<QueryKeyMap> ResultStore::queryKeyMap(const AnalysisPtr& analysis, int head) {
    return maps_.get({{analysis}, head}, [analysis, head]() { return headscope::queryKeyMap(*analysis, head); });
}

ResultStore::Result<ScoreBreakdown> ResultStore::scoreBreakdown(const AnalysisPtr& analysis, int head, int row,
                                                                int col, std::shared_ptr<const Circuits> circuits) {
    return breakdowns_.get({{analysis}, head, row, col, circuits}, [analysis, head, row, col, circuits]() {
        return headscope::scoreBreakdown(*analysis, head, row, col, circuits ? &circuits->W_QK : nullptr);
    });
}

ResultStore::Result<ProjectionProduct> ResultStore::projectionProduct(const AnalysisPtr& analysis, int head) {
    // X (n, d_model) through W_i^Q (d_model, d_k) then (W_i^K)^T, and through W_QK,i at once.
    return products_.get({{analysis}, head},
                         [analysis, head]() { return projectTwice(analysis->input.query.X, analysis->weights(), head); });
}

ResultStore::Result<CellLogitCurve> ResultStore::logitCurve(const AnalysisPtr& analysis, int head, int row, int col) {
    return curves_.get({{analysis}, head, row, col}, [analysis, head, row, col]() {
        return cellLogitCurve(*analysis, head, row, col);
    });
}

ResultStore::Result<RotaryDeltaResult> ResultStore::rotaryDelta(const AnalysisPtr& analysis, int head, int delta,
                                                                int product_limit) {
    const bool form_product = analysis->weights().dModel() <= product_limit;
    return rotary_.get({{analysis}, head, delta, form_product}, [analysis, head, delta, form_product]() {
        const Weights& w = analysis->weights();
        RotaryDeltaResult r;
        r.analysis = analysis;
        r.circuits = rotatedCircuits(w, analysis->rotary, head, delta, analysis->config.rank_rtol, form_product);
        for (int h = 0; h < w.heads; ++h) r.shares.push_back(pairShares(w, h, analysis->rotary));
        return r;
    });
}

void ResultStore::releaseLargeAnalysesOtherThan(const AnalysisPtr& current) {
    const AnalysisKey kept{current};
    const auto stale = [&kept](const auto& key) {
        const AnalysisKey& analysis = analysisKeyOf(key);
        return analysis.analysis && analysis.analysis->mapBytes() > kRetainedMapBytes && !(analysis == kept);
    };
    // circuits_ is keyed by the weights alone: it keeps no analysis.
    maps_.dropCached(stale);
    breakdowns_.dropCached(stale);
    products_.dropCached(stale);
    curves_.dropCached(stale);
    rotary_.dropCached(stale);
    lines_.dropCached(stale);
    patterns_.dropCached(stale);
}

void ResultStore::wait() {
    // A result handed over may make a view ask for the next kind (the breakdown after the
    // circuits): loop until every lane is idle.
    while (busy()) {
        circuits_.wait();
        maps_.wait();
        breakdowns_.wait();
        products_.wait();
        curves_.wait();
        rotary_.wait();
        lines_.wait();
        patterns_.wait();
    }
}

bool ResultStore::busy() const {
    return circuits_.busy() || maps_.busy() || breakdowns_.busy() || products_.busy() || curves_.busy() ||
           rotary_.busy() || lines_.busy() || patterns_.busy();
}

long long ResultStore::computed(Kind kind) const {
    switch (kind) {
        case Kind::Circuits: return circuits_.computed();
        case Kind::QueryKeyMap: return maps_.computed();
        case Kind::ScoreBreakdown: return breakdowns_.computed();
        case Kind::ProjectionProduct: return products_.computed();
        case Kind::LogitCurve: return curves_.computed();
        case Kind::RotaryDelta: return rotary_.computed();
        case Kind::TokenLines: return lines_.computed();
        case Kind::HeadPatterns: return patterns_.computed();
    }
    return 0;
}

long long ResultStore::requested(Kind kind) const {
    switch (kind) {
        case Kind::Circuits: return circuits_.requested();
        case Kind::QueryKeyMap: return maps_.requested();
        case Kind::ScoreBreakdown: return breakdowns_.requested();
        case Kind::ProjectionProduct: return products_.requested();
        case Kind::LogitCurve: return curves_.requested();
        case Kind::RotaryDelta: return rotary_.requested();
        case Kind::TokenLines: return lines_.requested();
        case Kind::HeadPatterns: return patterns_.requested();
    }
    return 0;
}

}  // namespace headscope::ui
