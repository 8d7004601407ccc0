// Session: validation on the GUI thread, analysis on a worker thread, coalescing of bursts,
// equivalence in the background. Numbers are compared with a direct analyze() call: the same
// code and seed, so they must be bit-identical.

#include <QSignalSpy>
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "Session.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

using AnalysisPtr = std::shared_ptr<const Analysis>;

Config sessionConfig(std::uint64_t seed = 3) {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.text = "Attention is all you need";
    c.seed = seed;
    return c;
}

// Exact equality of every per-head matrix and of the layer output.
void expectSameNumbers(const Analysis& actual, const Analysis& expected) {
    QCOMPARE(actual.results.heads.size(), expected.results.heads.size());
    for (std::size_t h = 0; h < expected.results.heads.size(); ++h) {
        const HeadResult& a = actual.results.heads[h];
        const HeadResult& e = expected.results.heads[h];
        QVERIFY2(a.weights == e.weights, qPrintable(QStringLiteral("weights of head %1 differ").arg(h)));
        QVERIFY2(a.logits == e.logits, qPrintable(QStringLiteral("logits of head %1 differ").arg(h)));
        QVERIFY2(a.output == e.output, qPrintable(QStringLiteral("output of head %1 differs").arg(h)));
    }
    QVERIFY(actual.results.output == expected.results.output);
    QCOMPARE(actual.spectra.size(), expected.spectra.size());
    for (std::size_t h = 0; h < expected.spectra.size(); ++h) QCOMPARE(actual.spectra[h].qk.rank, expected.spectra[h].qk.rank);
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { registerMetaTypes(); }

    void validConfigPublishesTheEnginesNumbers() {
        Session session;
        QSignalSpy changed(&session, &Session::changed);
        const Config config = sessionConfig();
        session.setConfig(config);
        // Asynchronous: nothing is computed inside setConfig().
        QVERIFY(session.busy());
        QVERIFY(!session.analysis());
        QVERIFY(session.waitForIdle(30000));

        QCOMPARE(changed.count(), 1);
        const auto published = changed.at(0).at(0).value<AnalysisPtr>();
        QVERIFY(published);
        QCOMPARE(published->config, config);
        const Analysis expected = analyze(config, false);
        expectSameNumbers(*published, expected);
        expectSameNumbers(*session.analysis(), expected);
        QCOMPARE(session.computations(), 1);
        QVERIFY(session.problems().isEmpty());
    }

    void invalidConfigEmitsProblemsAndKeepsTheLastValidAnalysis() {
        Session session;
        session.setConfig(sessionConfig());
        QVERIFY(session.waitForIdle(30000));
        const AnalysisPtr before = session.analysis();
        QVERIFY(before);

        QSignalSpy invalid(&session, &Session::invalid);
        QSignalSpy changed(&session, &Session::changed);
        Config bad = sessionConfig();
        bad.d_model = 100;
        bad.heads = 8;  // 100 / 8 is not an integer and d_k is derived
        session.setConfig(bad);

        QCOMPARE(invalid.count(), 1);
        const QStringList problems = invalid.at(0).at(0).toStringList();
        QVERIFY(!problems.isEmpty());
        QVERIFY2(problems.join(' ').contains(QLatin1String("not divisible by 8 heads")), qPrintable(problems.join(' ')));
        QCOMPARE(session.problems(), problems);
        QCOMPARE(session.config(), bad);
        QVERIFY(!session.busy());
        QTest::qWait(50);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(session.analysis().get(), before.get());  // the very same result object
        QCOMPARE(session.computations(), 1);

        // Fixing the config computes again and clears the problems.
        session.setConfig(sessionConfig(4));
        QVERIFY(session.problems().isEmpty());
        QVERIFY(session.waitForIdle(30000));
        QCOMPARE(session.analysis()->config.seed, std::uint64_t(4));
    }

    void aBurstOfChangesComputesFarFewerTimesAndTheLatestWins() {
        Session session;
        QSignalSpy changed(&session, &Session::changed);
        Config config = sessionConfig();
        config.d_model = 256;  // big enough that the first computation is still running
        config.heads = 8;
        for (int i = 1; i <= 20; ++i) {
            config.seed = std::uint64_t(i);
            config.temperature = 1.0 + 0.05 * i;
            session.setConfig(config);  // a slider drag: no event processing in between
        }
        QVERIFY(session.waitForIdle(60000));

        qInfo("20 requests -> %d computations, %d changed signals", session.computations(), int(changed.count()));
        QVERIFY(session.computations() <= 2);
        QVERIFY(changed.count() <= 2);
        QCOMPARE(session.analysis()->config, config);
        QCOMPARE(changed.last().at(0).value<AnalysisPtr>()->config, config);
        expectSameNumbers(*session.analysis(), analyze(config, false));
    }

    void requestsWhileAnAnalysisRunsAreCoalescedEvenWithEventsInBetween() {
        // Between processEvents() calls the GUI thread is the only one that starts analyses
        // or receives their results, so "an analysis is running" is exactly
        // computations() > changed.count(). A request made then must start nothing (it
        // replaces the one pending request); a request made while idle starts one.
        Session session;
        QSignalSpy changed(&session, &Session::changed);
        Config config = sessionConfig();
        config.d_model = 256;  // slow enough that requests arrive while it runs
        config.heads = 8;
        int coalesced = 0;
        for (int i = 0; i < 20; ++i) {
            config.seed = std::uint64_t(100 + i);
            const bool running = session.computations() > changed.count();
            const int before = session.computations();
            session.setConfig(config);
            if (running) {
                QCOMPARE(session.computations(), before);  // joined the single pending request
                ++coalesced;
            } else {
                QCOMPARE(session.computations(), before + 1);
            }
            QCoreApplication::processEvents();  // results may arrive between requests
        }
        QVERIFY(session.waitForIdle(60000));
        qInfo("20 requests, %d made while an analysis ran -> %d computations", coalesced, session.computations());
        QVERIFY2(coalesced > 0, "no request arrived while an analysis ran: the case was not exercised");
        // Each analysis started is published once.
        QCOMPARE(int(changed.count()), session.computations());
        QVERIFY(session.computations() < 20);
        QCOMPARE(session.analysis()->config, config);
        expectSameNumbers(*session.analysis(), analyze(config, false));
    }

    void equivalenceArrivesWithSmallResiduals() {
        Session session;
        QSignalSpy ready(&session, &Session::equivalenceReady);
        Config config = sessionConfig();
        config.mask = MaskKind::Causal;
        session.setConfig(config);
        QVERIFY(session.waitForIdle(30000));

        QCOMPARE(ready.count(), 1);
        const auto analysis = ready.at(0).at(0).value<AnalysisPtr>();
        QVERIFY(analysis && analysis->equivalence);
        const Equivalence& e = *analysis->equivalence;
        qInfo("fused vs per-head %.3g, factored vs merged %.3g, max |logit| %.3g", e.fused_vs_per_head,
              e.factored_vs_merged, e.max_abs_logit);
        QCOMPARE(e.fused_vs_per_head, 0.0);  // the same products in the same order: bitwise equal
        QVERIFY(e.factored_vs_merged <= 1e-6 * e.max_abs_logit);  // measured 2e-7 (tests/core/test_engine)
        QVERIFY(e.max_abs_logit > 0.1);
        QVERIFY(session.analysis()->equivalence);  // analysis() now carries the residuals
        expectSameNumbers(*analysis, analyze(config, false));
    }

    void noStaleEquivalenceWhenANewerConfigIsPending() {
        Session session;
        QSignalSpy ready(&session, &Session::equivalenceReady);
        Config config = sessionConfig();
        for (int i = 0; i < 5; ++i) {
            config.seed = std::uint64_t(i);
            session.setConfig(config);
        }
        QVERIFY(session.waitForIdle(30000));
        QVERIFY(ready.count() >= 1);
        for (const QList<QVariant>& args : ready) QCOMPARE(args.at(0).value<AnalysisPtr>()->config, config);
    }

    void destroyingABusySessionWaitsForItsWorker() {
        // The destructor must wait for the running analysis: a worker outliving its Session
        // would post its result to a deleted object (a crash, or an ASan report in the
        // sanitizer run) and Qt aborts when a QThread is destroyed while running.
        auto session = std::make_unique<Session>();
        int published = 0;
        QObject receiver;
        QObject::connect(session.get(), &Session::changed, &receiver, [&] { ++published; });
        Config config = sessionConfig();
        config.d_model = 512;
        session->setConfig(config);
        QVERIFY(session->busy());  // really destroyed while busy: the case under test
        QCOMPARE(session->computations(), 1);
        session.reset();
        QTest::qWait(200);  // anything the worker still posted would be delivered now
        QCOMPARE(published, 0);
    }
};

HEADSCOPE_QTEST_MAIN(TestSession)
#include "test_session.moc"
