// The document's background work waits for the frame: equivalence residuals and the selected
// head's circuits of a new analysis start only after the widgets painted it, so on two cores they
// never take the GUI thread's share while it draws. (Before, their results, fast for a twoWordConfig
// layer, were delivered before the paint of a view slow to lay out.) Events are recorded in
// order; nothing is timed.

#include <QSignalSpy>
#include <QStringList>
#include <QThread>
#include <QWidget>
#include <QtTest>
#include "QtTestGroup.h"

#include <cstdint>
#include <utility>

#include "Analysis.h"
#include "Circuits.h"
#include "HeadGridView.h"
#include "Session.h"
#include "ViewBinding.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

// A widget that writes "paint" into the log each time it is painted.
class PaintLog : public QWidget {
public:
    explicit PaintLog(QStringList* log) : log_(log) { resize(200, 100); }

protected:
    void paintEvent(QPaintEvent*) override { *log_ << QStringLiteral("paint"); }

private:
    QStringList* log_;
};

Config twoWordConfig(std::uint64_t seed) {
    Config c;
    c.d_model = 8;
    c.heads = 2;
    c.text = "one two";
    c.seed = seed;
    return c;
}

}  // namespace

class TestSessionFrames : public QObject {
    Q_OBJECT

private slots:
    void backgroundWorkStartsAfterThePaint() {
        QStringList log;
        PaintLog widget(&log);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        Session session;
        session.setConfig(twoWordConfig(1));
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(session.circuits());

        // A view that repaints on every change, as every view does, and takes a while to lay
        // out (as the head grid does): long enough for a twoWordConfig layer's residuals and circuits to
        // be computed and queued back if they were started with the analysis.
        connect(&session, &Session::changed, &widget, [&]() {
            log << QStringLiteral("changed");
            widget.update();
            QThread::msleep(50);
        });
        connect(&session, &Session::equivalenceReady, &widget, [&]() { log << QStringLiteral("equivalence"); });
        connect(&session, &Session::circuitsReady, &widget, [&]() { log << QStringLiteral("circuits"); });
        for (std::uint64_t seed : {2, 3, 4}) {  // new weights: residuals and circuits both due
            log.clear();
            session.setConfig(twoWordConfig(seed));
            QVERIFY(session.waitForIdle(60000));
            QVERIFY2(log.size() >= 4, qPrintable(log.join(' ')));
            QCOMPARE(log.at(0), QStringLiteral("changed"));
            QCOMPARE(log.at(1), QStringLiteral("paint"));
            QVERIFY2(log.contains("equivalence") && log.contains("circuits"), qPrintable(log.join(' ')));
            QVERIFY(session.analysis()->equivalence.has_value());
            QCOMPARE(session.circuits()->W_QK, headCircuits(session.analysis()->weights(), session.head()).W_QK);
        }
    }

    void heatmapsAreShownBeforeTheSpectra() {
        Session session;
        HeadGridView grid;
        grid.resize(600, 400);
        bindView(&session, &grid);
        session.setConfig(twoWordConfig(1));
        QVERIFY(session.waitForIdle(60000));

        QStringList log;
        std::shared_ptr<const Analysis> early, complete, before = session.analysis();
        // Connected after the grid's binding: each records what the grid holds once it has drawn.
        connect(&session, &Session::forwardReady, &grid, [&](std::shared_ptr<const Analysis> a) {
            log << QStringLiteral("forwardReady");
            early = a;
            QCOMPARE(grid.analysis(), a);  // drawn at once, before the spectra arrive
            QCOMPARE(session.analysis(), before);  // the document: still the last complete analysis
        });
        connect(&session, &Session::changed, &grid, [&](std::shared_ptr<const Analysis> a) {
            log << QStringLiteral("changed");
            complete = a;
        });
        session.setConfig(twoWordConfig(2));  // new weights: new spectra
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(log, (QStringList{"forwardReady", "changed"}));
        QCOMPARE(early, complete);  // one object: the grid did not draw it twice
        QCOMPARE(grid.analysis(), complete);
        QCOMPARE(static_cast<int>(complete->spectra.size()), 2);
        QCOMPARE(complete->spectra[0].qk.singular_values, headSpectra(complete->weights())[0].qk.singular_values);

        log.clear();
        before = session.analysis();  // with its residuals: a newer object than complete
        Config warmer = twoWordConfig(2);
        warmer.temperature = 2;  // same weights, same spectra: the heatmaps still come first,
        session.setConfig(warmer);  // while the logits' spectra are computed
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(log, (QStringList{"forwardReady", "changed"}));
        QCOMPARE(early, complete);
        QCOMPARE(grid.analysis(), complete);
        QCOMPARE(complete->config.temperature, 2.0);
    }

    void aBurstStillEndsWithTheNewestResiduals() {
        Session session;
        QSignalSpy ready(&session, &Session::equivalenceReady);
        for (std::uint64_t seed = 10; seed < 20; ++seed) session.setConfig(twoWordConfig(seed));
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(ready.count() >= 1);
        QCOMPARE(session.analysis()->config.seed, std::uint64_t{19});
        QVERIFY(session.analysis()->equivalence.has_value());
        QCOMPARE(session.circuits()->W_QK, headCircuits(session.analysis()->weights(), session.head()).W_QK);
    }

    // A change made while the last analysis' residuals are being checked stops that check: its
    // (d_model, d_model) products would only take the cores from the new analysis (a drag).
    void aNewChangeStopsTheRunningCheck() {
        Config large;
        large.d_model = 4096;
        large.heads = 32;  // d_k 128: each head's merged W_QK,i is 2.1e9 multiply-adds, 6.9e10 in all
        large.text = "one two";
        large.seed = 1;
        Session session;
        session.setConfig(large);
        // Minutes, not seconds: under AddressSanitizer on a 2-core AMD EPYC Zen 3 the large analysis
        // took 83 s before its check started (0.7 s in the normal build).
        QTRY_COMPARE_WITH_TIMEOUT(session.equivalenceChecksStarted(), 1LL, 300000);  // after the frame
        QCOMPARE(session.equivalenceChecksStopped(), 0);
        session.setConfig(twoWordConfig(2));
        QVERIFY(session.waitForIdle(300000));
        QCOMPARE(session.equivalenceChecksStopped(), 1);
        QCOMPARE(session.equivalenceChecksStarted(), 2LL);  // the new analysis has its own, complete
        QCOMPARE(session.analysis()->config.d_model, 8);
        QVERIFY(session.analysis()->equivalence.has_value());
    }

    // An analysis that a newer change has already replaced gets no circuits: the newer one forms
    // its own (a drag forms the last step's only), and those stand for the analysis shown.
    void aNewerAnalysisOnItsWayDefersTheCircuits() {
        Config config;
        config.d_model = 768;
        config.heads = 12;  // BERT-base: the second analysis is still computing when the first's frame ends
        config.text = "one two three four";
        config.seed = 1;
        Session session;
        bool changed_again = false;
        connect(&session, &Session::changed, &session, [&]() {
            if (std::exchange(changed_again, true)) return;
            Config next = config;
            next.seed = 2;
            session.setConfig(next);  // while the first analysis is being shown
        });
        session.setConfig(config);
        QVERIFY(session.waitForIdle(300000));
        QCOMPARE(session.analysis()->config.seed, std::uint64_t{2});
        QCOMPARE(session.results()->computed(ResultStore::Kind::Circuits), 1LL);
        QVERIFY(session.circuits());
        QVERIFY(session.circuits()->W_QK.isApprox(headCircuits(session.analysis()->weights(), session.head()).W_QK));
    }
};

HEADSCOPE_QTEST_MAIN(TestSessionFrames)
#include "test_session_frames.moc"
