// The results store (issue 24): every derived result of an analysis is computed once, off the
// GUI thread, cached, and read by the document, the views and export.
//  - a result asked for twice is computed once (a counter), also by a second view sharing it,
//    and circuits are keyed by the weights (a new text over the same weights reuses them);
//  - results are keyed by what they depend on (weights, input, options, head), not by the
//    analysis object: a copy of an analysis finds them, an analysis at another temperature over
//    the same weights and input does not; the Session's republished analysis (with its
//    equivalence) finds what was computed for the analysis it copies (counters);
//  - a stale request's result is dropped when a newer one was asked for meanwhile;
//  - a long input's analysis is not kept alive by the caches once another is shown;
//  - every stored result equals core's function on the same input (max difference printed;
//    tolerance 0: the same deterministic function of the same immutable input);
//  - views draw the store's values (the very objects the store holds);
//  - the Session publishes the store's circuits, and a head seen before is not formed again;
//  - export reads the store: exporting every view in two formats computes each result once, and
//    the circuits it drew are the store's, equal to headCircuits.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "Circuits.h"
#include "Engine.h"
#include "Export.h"
#include "ProjectionProductView.h"
#include "QueryKeyMapView.h"
#include "ResultStore.h"
#include "RotaryDelta.h"
#include "RotaryTestAnalysis.h"
#include "ScoreBreakdownView.h"
#include "Session.h"
#include "ViewTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using Kind = ResultStore::Kind;

using headscope::ui::testing::analysisOf;
namespace {

Config smallConfig(const char* text = "the cat sat on the mat because it was warm") {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.init = InitKind::Normal;
    c.init_sigma = 0.3;
    c.text = text;
    return c;
}

using test::rotaryAnalysis;

template <typename A, typename B>
double maxDifference(const A& a, const B& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    if (a.size() == 0) return 0;
    return (a.template cast<double>() - b.template cast<double>()).cwiseAbs().maxCoeff();
}

#define EXPECT_SAME(a, b)                                                                                  \
    do {                                                                                                   \
        const double d = maxDifference(a, b);                                                              \
        QVERIFY2(d == 0, qPrintable(QStringLiteral("%1 vs %2: max difference %3").arg(#a, #b).arg(d))); \
    } while (0)

// The store's result for a request, after waiting for it.
template <typename Ask>
auto fetch(ResultStore& store, Ask ask) {
    if (auto r = ask()) return *r;
    store.wait();
    auto r = ask();
    return r ? *r : nullptr;
}

}  // namespace

class ResultStoreTest : public QObject {
    Q_OBJECT

private slots:
    void aResultAskedTwiceIsComputedOnce() {
        ResultStore store;
        const auto a = analysisOf(smallConfig());
        QVERIFY(!store.queryKeyMap(a, 1));  // asked: computed in the background
        QVERIFY(!store.queryKeyMap(a, 1));  // on its way: not asked again
        store.wait();
        const auto map = store.queryKeyMap(a, 1);
        QVERIFY(map && *map);
        QVERIFY(store.queryKeyMap(a, 1)->get() == map->get());  // the cached object
        QCOMPARE(store.computed(Kind::QueryKeyMap), 1LL);
        QCOMPARE(store.requested(Kind::QueryKeyMap), 1LL);

        // Circuits depend on the weights alone: an analysis of another text over the same weights
        // (which shares them) finds the circuits formed for the first.
        const auto circuits = fetch(store, [&] { return store.circuits(a, 2); });
        QVERIFY(circuits);
        const auto other_text = analysisOf(smallConfig("a dog ran"), a.get());
        QVERIFY(other_text->shared_weights == a->shared_weights);
        const auto again = store.circuits(other_text, 2);
        QVERIFY(again && again->get() == circuits.get());
        QCOMPARE(store.computed(Kind::Circuits), 1LL);
    }

    void aResultIsKeyedByWhatItDependsOn() {
        ResultStore store;
        const auto a = analysisOf(smallConfig());
        const auto map = fetch(store, [&] { return store.queryKeyMap(a, 1); });
        QVERIFY(map);
        const auto copy = std::make_shared<const Analysis>(*a);  // another object, the same inputs
        const auto again = store.queryKeyMap(copy, 1);
        QVERIFY2(again && again->get() == map.get(), "a copy of the analysis did not find its Q-K map");
        QCOMPARE(store.computed(Kind::QueryKeyMap), 1LL);

        // The same weights and input at another temperature: other attention, another map.
        Config hotter = smallConfig();
        hotter.temperature = 3.0;
        const auto b = analysisOf(hotter, a.get());
        QVERIFY(b->shared_weights == a->shared_weights);
        QVERIFY(b->input.query.X == a->input.query.X);
        const auto hot_map = fetch(store, [&] { return store.queryKeyMap(b, 1); });
        QCOMPARE(store.computed(Kind::QueryKeyMap), 2LL);
        QVERIFY(hot_map && hot_map.get() != map.get());
        QCOMPARE(hot_map->most_attended, queryKeyMap(*b, 1).most_attended);
    }

    void theEquivalenceRepublishFindsTheStoredResults() {
        Session session;
        std::shared_ptr<const Analysis> first;
        connect(&session, &Session::changed, this, [&first](std::shared_ptr<const Analysis> a) {
            if (!first) first = std::move(a);
        });
        session.setConfig(smallConfig());
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(first);
        ResultStore& store = *session.results();
        const int head = 2;
        QVERIFY(fetch(store, [&] { return store.queryKeyMap(first, head); }));
        QVERIFY(fetch(store, [&] { return store.scoreBreakdown(first, head, 4, 1, nullptr); }));
        QVERIFY(fetch(store, [&] { return store.projectionProduct(first, head); }));
        // The equivalence finished: the Session published a copy with the residuals.
        const std::shared_ptr<const Analysis> republished = session.analysis();
        QVERIFY(republished && republished.get() != first.get() && republished->equivalence);
        QVERIFY2(store.queryKeyMap(republished, head), "the republished analysis' Q-K map was asked again");
        QVERIFY(store.scoreBreakdown(republished, head, 4, 1, nullptr));
        QVERIFY(store.projectionProduct(republished, head));
        store.wait();
        QCOMPARE(store.computed(Kind::QueryKeyMap), 1LL);
        QCOMPARE(store.computed(Kind::ScoreBreakdown), 1LL);
        QCOMPARE(store.computed(Kind::ProjectionProduct), 1LL);
    }

    // A long input's analysis holds a whole layer's maps (72 MB here; 535 MB at 2,048 tokens of a
    // 32-head layer), and a cached key keeps its analysis alive: once the Session shows another
    // analysis, the caches let go of the long one (its results dropped), so a few edits of a long
    // text do not keep a few layers' maps. A small analysis' results stay, to go back to at once,
    // and so do the shown analysis' own however large. Without the release the watched analysis
    // outlives every pointer but the cache's.
    void aLongInputIsNotKeptAliveByTheCaches() {
        Config long_config = smallConfig();
        long_config.text.clear();
        long_config.seq_len = 1500;  // 4 heads x 1500^2 x (logits, weights) x 4 bytes
        Session session;
        session.setConfig(long_config);
        QVERIFY(session.waitForIdle(60000));
        std::shared_ptr<const Analysis> long_one = session.analysis();
        QVERIFY(long_one && long_one->mapBytes() > ResultStore::kRetainedMapBytes);
        ResultStore& store = *session.results();
        QVERIFY(fetch(store, [&] { return store.queryKeyMap(long_one, 1); }));
        QVERIFY(fetch(store, [&] { return store.tokenLines(long_one, {0, 1}, TokenLineSentences::All); }));
        store.releaseLargeAnalysesOtherThan(long_one);  // the one shown: its results stay
        QVERIFY(store.queryKeyMap(long_one, 1));
        const std::weak_ptr<const Analysis> watched = long_one;
        long_one.reset();

        session.setConfig(smallConfig());
        QVERIFY(session.waitForIdle(60000));
        const std::shared_ptr<const Analysis> small = session.analysis();
        QVERIFY(small && small->mapBytes() < ResultStore::kRetainedMapBytes);
        QVERIFY2(watched.expired(), "the caches still keep the long input's analysis (and its maps) alive");
        QVERIFY(fetch(store, [&] { return store.queryKeyMap(small, 1); }));

        // Another small analysis shown: the first small one's results are still there.
        Config other = smallConfig();
        other.temperature = 2.0;
        session.setConfig(other);
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(store.queryKeyMap(small, 1));
        QCOMPARE(store.computed(Kind::QueryKeyMap), 2LL);
    }

    void aStaleResultIsDroppedWhenANewerOneWasAsked() {
        ResultStore store;
        QSignalSpy ready(&store, &ResultStore::ready);
        const auto a = analysisOf(smallConfig());
        // No event is handled between these: head 0 starts at once, head 1 waits and is
        // replaced by head 2; head 0's result comes back after head 2 was asked, so it is stale.
        QVERIFY(!store.queryKeyMap(a, 0));
        QVERIFY(!store.queryKeyMap(a, 1));
        QVERIFY(!store.queryKeyMap(a, 2));
        store.wait();
        QCOMPARE(store.requested(Kind::QueryKeyMap), 3LL);
        QCOMPARE(store.computed(Kind::QueryKeyMap), 2LL);  // head 1 never ran
        QCOMPARE(ready.count(), 1);                        // head 2's only
        const auto head2 = store.queryKeyMap(a, 2);
        QVERIFY(head2 && *head2 && (*head2)->head == 2);
        QVERIFY(!store.queryKeyMap(a, 0));  // dropped, not cached: asked again
        store.wait();
        QCOMPARE(store.computed(Kind::QueryKeyMap), 3LL);
    }

    void everyStoredResultEqualsCore() {
        ResultStore store;
        const auto a = analysisOf(smallConfig());
        const int head = 3, row = 6, col = 2;

        const auto circuits = fetch(store, [&] { return store.circuits(a, head); });
        QVERIFY(circuits);
        const Circuits expected_circuits = headCircuits(a->weights(), head);
        EXPECT_SAME(circuits->W_QK, expected_circuits.W_QK);
        EXPECT_SAME(circuits->W_OV, expected_circuits.W_OV);

        const auto map = fetch(store, [&] { return store.queryKeyMap(a, head); });
        QVERIFY(map);
        const QueryKeyMap expected_map = queryKeyMap(*a, head);
        EXPECT_SAME(map->query_points, expected_map.query_points);
        EXPECT_SAME(map->key_points, expected_map.key_points);
        QCOMPARE(map->most_attended, expected_map.most_attended);

        const auto breakdown = fetch(store, [&] { return store.scoreBreakdown(a, head, row, col, circuits); });
        QVERIFY(breakdown && breakdown->bilinear);
        const ScoreBreakdown expected_breakdown = scoreBreakdown(*a, head, row, col, &expected_circuits.W_QK);
        EXPECT_SAME(breakdown->q, expected_breakdown.q);
        EXPECT_SAME(breakdown->k, expected_breakdown.k);
        QCOMPARE(breakdown->logit, expected_breakdown.logit);
        QCOMPARE(breakdown->bilinear->logit, expected_breakdown.bilinear->logit);
        EXPECT_SAME(breakdown->softmax_row, expected_breakdown.softmax_row);

        const auto product = fetch(store, [&] { return store.projectionProduct(a, head); });
        QVERIFY(product);
        const ProjectionProduct expected_product = projectTwice(a->input.query.X, a->weights(), head);
        EXPECT_SAME(product->first, expected_product.first);
        EXPECT_SAME(product->twice, expected_product.twice);
        EXPECT_SAME(product->merged, expected_product.merged);

        const auto r = rotaryAnalysis();
        const auto curve = fetch(store, [&] { return store.logitCurve(r, 2, 8, 2); });
        QVERIFY(curve);
        const CellLogitCurve expected_curve = cellLogitCurve(*r, 2, 8, 2);
        QCOMPARE(curve->curve.deltas, expected_curve.curve.deltas);
        QCOMPARE(curve->curve.logits, expected_curve.curve.logits);

        const auto rotated = fetch(store, [&] { return store.rotaryDelta(r, 1, -3, kMaxWindowCircuitDModel); });
        QVERIFY(rotated);
        const RotatedCircuits expected_rotated =
            rotatedCircuits(r->weights(), r->rotary, 1, -3, r->config.rank_rtol, true);
        EXPECT_SAME(rotated->circuits.W_QK, expected_rotated.W_QK);
        QCOMPARE(rotated->circuits.qk.size(), expected_rotated.qk.size());
        for (std::size_t h = 0; h < expected_rotated.qk.size(); ++h)
            EXPECT_SAME(rotated->circuits.qk[h].singular_values, expected_rotated.qk[h].singular_values);
        for (int h = 0; h < r->weights().heads; ++h)
            QCOMPARE(rotated->shares[std::size_t(h)], pairShares(r->weights(), h, r->rotary));

        // A result that cannot be computed is stored as such (a null pointer), not asked for forever.
        const auto missing = fetch(store, [&] { return store.queryKeyMap(a, 99); });
        QVERIFY(!missing);
        QVERIFY(store.queryKeyMap(a, 99).has_value());
    }

    void viewsDrawTheStoresValues() {
        ResultStore store;
        const auto a = analysisOf(smallConfig());
        QueryKeyMapView map_view, second_map_view;
        ScoreBreakdownView score_view;
        ProjectionProductView product_view;
        map_view.setResultStore(&store);
        second_map_view.setResultStore(&store);
        score_view.setResultStore(&store);
        product_view.setResultStore(&store);
        for (QueryKeyMapView* v : {&map_view, &second_map_view}) {
            v->setAnalysis(a);
            v->setHead(1);
            v->replotNow();
        }
        score_view.setAnalysis(a);
        score_view.setHead(1);
        score_view.setCell(5, 1);
        score_view.replotNow();
        product_view.setAnalysis(a);
        product_view.setHead(1);
        product_view.replotNow();

        // Two views of the same map: computed once.
        QCOMPARE(store.computed(Kind::QueryKeyMap), 1LL);
        QCOMPARE(store.computed(Kind::ScoreBreakdown), 1LL);
        QCOMPARE(store.computed(Kind::ProjectionProduct), 1LL);
        const auto map = store.queryKeyMap(a, 1);
        QVERIFY(map && *map && map_view.hasMap());
        QCOMPARE(map_view.queryGraph()->data()->size(), int((*map)->query_points.rows()));
        for (int i = 0; i < int((*map)->query_points.rows()); ++i) {
            QCOMPARE(map_view.queryGraph()->data()->at(i)->key, (*map)->query_points(i, 0));
            QCOMPARE(map_view.queryGraph()->data()->at(i)->value, (*map)->query_points(i, 1));
        }
        const auto breakdown = store.scoreBreakdown(a, 1, 5, 1, nullptr);
        QVERIFY(breakdown && *breakdown && score_view.hasBreakdown());
        EXPECT_SAME(score_view.breakdown().q, (*breakdown)->q);
        QCOMPARE(score_view.breakdown().logit, (*breakdown)->logit);
        const auto product = store.projectionProduct(a, 1);
        QVERIFY(product && product->get() == product_view.product());  // the store's object, drawn
    }

    void theSessionPublishesTheStoresCircuits() {
        Session session;
        session.setConfig(smallConfig());
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(session.circuits());
        ResultStore& store = *session.results();
        const auto stored = store.circuits(session.analysis(), session.head());
        QVERIFY(stored && stored->get() == session.circuits().get());
        QCOMPARE(store.computed(Kind::Circuits), 1LL);
        session.setHead(1);
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(session.circuits()->head, 1);
        session.setHead(0);  // seen before: the cached circuits, at once
        QCOMPARE(session.circuits()->head, 0);
        QVERIFY(session.circuits().get() == stored->get());
        QCOMPARE(store.computed(Kind::Circuits), 2LL);
        // Another text over the same weights: no circuits formed again.
        Config other = smallConfig("a dog ran home");
        session.setConfig(other);
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(store.computed(Kind::Circuits), 2LL);
        QVERIFY(session.circuits().get() == stored->get());
    }

    void exportReadsTheStoresResults() {
        const Analysis a = analyze(smallConfig(), false);
        ResultStore store;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const int head = 2;
        const QStringList files =
            exportImages(a, dir.path(), {ImageFormat::Png, ImageFormat::Svg}, &error, {}, 1.0, head, std::nullopt, &store);
        QVERIFY2(error.isEmpty() && !files.isEmpty(), qPrintable(error));
        // Every view of both formats read one computation of each result.
        QCOMPARE(store.computed(Kind::Circuits), 1LL);
        QCOMPARE(store.computed(Kind::QueryKeyMap), 1LL);
        QCOMPARE(store.computed(Kind::ScoreBreakdown), 1LL);
        QCOMPARE(store.computed(Kind::ProjectionProduct), 1LL);
        const std::shared_ptr<const Analysis> same(std::shared_ptr<const Analysis>(), &a);  // the analysis exported
        const auto circuits = store.circuits(same, head);
        QVERIFY(circuits && *circuits);
        const Circuits expected = headCircuits(a.weights(), head);
        EXPECT_SAME((*circuits)->W_QK, expected.W_QK);
        EXPECT_SAME((*circuits)->W_OV, expected.W_OV);
        QVERIFY(store.queryKeyMap(same, head).has_value());  // the map drawn is cached too
    }
};

HEADSCOPE_QTEST_MAIN(ResultStoreTest)
#include "test_result_store.moc"
