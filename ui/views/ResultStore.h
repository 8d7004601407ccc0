#pragma once
// The derived results of the document, computed once each, off the GUI thread, and cached
// (issue 24): the selected head's circuits, the Q-K map, the score breakdown of a cell, the
// projection product (lesson 2), a rotary cell's logit against Delta, a rotary layer's
// W_QK,i(Delta), a long text's token lines and what each head
// of a single layer looks at. The Session owns one (Session::results()); the window gives it to every view
// that draws such a result, and export uses the same one (or one of its own in the CLI), so
// views and export read results and never compute them.
//
// Each getter returns the result when it is cached: std::nullopt while it is computed (the
// getter asked for it), or a null pointer when it could not be computed (out of memory,
// dimensions that do not fit). ready(kind) is emitted on the GUI thread when a result of that
// kind arrives; the view then asks again and draws it. Every kind runs through its own
// ResultLane (LatestOnly: the newest request wins, stale results are dropped). Results are
// keyed by what they depend on (AnalysisKey: the weights, the input and the options, and head,
// cell, Delta, the token lines' heads), not by the analysis object: the Session's republished copy of an analysis (with
// its equivalence) finds what was computed for the analysis it copies. A cached key keeps its
// analysis alive (an Analysis is immutable), so a key is compared against live data.
// This lives in ui/views (not ui/document) because views read it and include nothing above them.

#include <QObject>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "Analysis.h"
#include "Circuits.h"
#include "ProjectionProduct.h"
#include "QueryKeyMap.h"
#include "ResultKind.h"
#include "ResultLane.h"
#include "RotaryCircuits.h"
#include "ScoreBreakdown.h"
#include "TokenLineChoice.h"
#include "model/HeadPatterns.h"

namespace headscope::ui {

// What the RoPE views of a rotary layer draw at one Delta (RotaryDelta.h).
struct RotaryDeltaResult {
    std::shared_ptr<const Analysis> analysis;  // the layer it was computed for
    RotatedCircuits circuits;                  // every head's W_QK,i(Delta) spectrum, the head's product
    std::vector<std::vector<double>> shares;   // per head: pairShares (high frequency first, unrotated last)
};

// An analysis as a cache key: equal to another when every derived result of the two must be
// equal, i.e. they share the weights object and have the same input (tokens and embeddings),
// attention options (mask, padded keys, scale, temperature, rotary positions) and rank
// tolerance. Its own object compares equal at once; another is compared value by value
// (O(n d_model), far below any result's cost).
struct AnalysisKey {
    std::shared_ptr<const Analysis> analysis;
    bool operator==(const AnalysisKey& other) const;
};

class ResultStore : public QObject {
    Q_OBJECT

public:
    using Kind = ResultKind;
    template <typename T>
    using Result = std::optional<std::shared_ptr<const T>>;
    using AnalysisPtr = std::shared_ptr<const Analysis>;

    explicit ResultStore(QObject* parent = nullptr);
    ~ResultStore() override;  // waits for running jobs and drops their results

    // headCircuits(weights, head): W_QK,i and W_OV,i (d_model, d_model), keyed by the weights
    // (analyses of the same weights share them).
    Result<Circuits> circuits(const AnalysisPtr& analysis, int head);
    // queryKeyMap(analysis, head).
    Result<QueryKeyMap> queryKeyMap(const AnalysisPtr& analysis, int head);
    // scoreBreakdown(analysis, head, row, col, W_QK of circuits when given, else none).
    Result<ScoreBreakdown> scoreBreakdown(const AnalysisPtr& analysis, int head, int row, int col,
                                          std::shared_ptr<const Circuits> circuits);
    // projectTwice(X of the queries, weights, head).
    Result<ProjectionProduct> projectionProduct(const AnalysisPtr& analysis, int head);
    // cellLogitCurve(analysis, head, row, col) of a rotary layer.
    Result<CellLogitCurve> logitCurve(const AnalysisPtr& analysis, int head, int row, int col);
    // rotatedCircuits(weights, rotary, head, delta, rank_rtol, d_model <= product_limit) and every
    // head's pairShares.
    Result<RotaryDeltaResult> rotaryDelta(const AnalysisPtr& analysis, int head, int delta, int product_limit);
    // chooseTokenLines(analysis, heads, sentences): a long text's token lines.
    Result<TokenLineSet> tokenLines(const AnalysisPtr& analysis, const std::vector<int>& heads, TokenLineSentences sentences);
    // model::layerPatterns(analysis): what each head of a single layer looks at.
    Result<model::Trace> layerPatterns(const AnalysisPtr& analysis);

    // Forgets the results cached for analyses other than `current` (compared as AnalysisKey) whose
    // maps take more than kRetainedMapBytes: each cached key keeps its analysis alive, and a long
    // input's analysis holds a whole layer's maps (535 MB at 2,048 tokens of a 32-head layer), so
    // the caches of a few edits would otherwise keep a few layers' maps. The Session calls it with
    // each analysis it shows. Results of smaller analyses stay, to go back to them at once.
    void releaseLargeAnalysesOtherThan(const AnalysisPtr& current);
    static constexpr double kRetainedMapBytes = 64.0 * (1 << 20);

    // Blocks until no job runs or waits, every result handed over (export and tests; never on
    // the interactive path).
    void wait();
    bool busy() const;
    // Jobs run so far for kind (a result asked for twice is computed once).
    long long computed(Kind kind) const;
    long long requested(Kind kind) const;  // computations asked for: more than computed() when a burst coalesced

signals:
    void ready(headscope::ui::ResultStore::Kind kind);  // a result of kind was cached
    void jobFinished();                                 // a job ended, its result kept or dropped

private:
    using HeadKey = std::pair<AnalysisKey, int>;
    using CellKey = std::tuple<AnalysisKey, int, int, int>;  // (analysis, head, row, col)
    using BreakdownKey = std::tuple<AnalysisKey, int, int, int, std::shared_ptr<const Circuits>>;
    using DeltaKey = std::tuple<AnalysisKey, int, int, bool>;  // (analysis, head, delta, product formed)
    // (analysis, heads, sentences, the second sentence's start: not part of an AnalysisKey)
    using LinesKey = std::tuple<AnalysisKey, std::vector<int>, TokenLineSentences, int>;

    std::function<void()> arrived(Kind kind);
    std::function<void()> finished();

    ResultLane<std::pair<std::shared_ptr<const Weights>, int>, Circuits> circuits_;
    ResultLane<HeadKey, QueryKeyMap> maps_;
    ResultLane<BreakdownKey, ScoreBreakdown> breakdowns_;
    ResultLane<HeadKey, ProjectionProduct> products_;
    ResultLane<CellKey, CellLogitCurve> curves_;
    ResultLane<DeltaKey, RotaryDeltaResult> rotary_;
    ResultLane<LinesKey, TokenLineSet> lines_;
    ResultLane<std::pair<AnalysisKey, int>, model::Trace> patterns_;  // (analysis, second sentence)
};

}  // namespace headscope::ui

Q_DECLARE_METATYPE(headscope::ui::ResultStore::Kind)
