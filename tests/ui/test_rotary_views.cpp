// RoPE made visible (issue 22 item 4), on a rotary layer with grouped-query attention built
// from a random configuration (the engine's forward pass with rotary positions):
//  - the shared Delta follows the selected cell's j - i until a slider moves it;
//  - the spectra at Delta = 0 are those of W_Q W_K^T; at any Delta they are core's
//    W_QK,i(Delta) spectra, rank <= d_k, and the title says "Δ = 3";
//  - the Circuits view draws W_QK,i(Delta) formed by the worker and names the Delta;
//  - the logit-against-Delta curve at the cell's own Delta is the engine's logit;
//  - the frequency shares sum to 1 for every head; a layer without rotary positions says its
//    logits do not depend on Delta;
//  - grouped-query attention: the rank table and the heads grid name each head's kv head;
//  - work off the GUI thread (LatestOnly): a burst of Delta changes runs the first and the latest
//    job only and shows the latest; the logit curve is core's cellLogitCurve, computed in the
//    background, and after a burst of cells the view shows the last one.
#include <QSlider>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "CircuitView.h"
#include "DeltaSlider.h"
#include "HeadGridView.h"
#include "HeadNames.h"
#include "RankTableView.h"
#include "RotaryCircuits.h"
#include "RotaryDelta.h"
#include "RotaryTestAnalysis.h"
#include "RotaryView.h"
#include "SpectrumView.h"

using namespace headscope;
using namespace headscope::ui;

using test::rotaryAnalysis;

class TestRotaryViews : public QObject {
    Q_OBJECT

private slots:
    void deltaFollowsTheCellUntilTheSliderMoves() {
        RotaryDelta delta;
        delta.setAnalysis(rotaryAnalysis());
        QVERIFY(delta.rotary());
        QCOMPARE(delta.minDelta(), -8);
        QCOMPARE(delta.maxDelta(), 8);
        delta.setCell(6, 2);
        QCOMPARE(delta.delta(), -4);
        DeltaSlider slider;
        slider.setRotaryDelta(&delta);
        QCOMPARE(slider.slider()->value(), -4);
        QVERIFY(slider.text().contains(QStringLiteral("= -4")));
        slider.slider()->setValue(3);  // the user
        QCOMPARE(delta.delta(), 3);
        QVERIFY(!delta.followsCell());
        delta.setCell(5, 5);
        QCOMPARE(delta.delta(), 3);  // no longer follows
        delta.followCell();
        QCOMPARE(delta.delta(), 0);
        RotaryDelta plain;
        plain.setAnalysis(rotaryAnalysis(false));
        QVERIFY(!plain.rotary());
    }

    void spectraAtDeltaZeroAreThoseOfWqWkTAndRankStaysAtMostDk() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        SpectrumView view;
        view.resize(900, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setRotaryDelta(&delta);
        view.setAnalysis(a);
        delta.setAnalysis(a);
        delta.setCell(4, 4);  // Delta = 0
        delta.waitForResult();
        QVERIFY(delta.result());
        for (int h = 0; h < 4; ++h) {
            const Eigen::VectorXd& shown = view.qkSpectrum(h).singular_values;
            const Eigen::VectorXd& plain = a->spectra[std::size_t(h)].qk.singular_values;
            QCOMPARE(shown.size(), plain.size());
            QVERIFY((shown - plain).cwiseAbs().maxCoeff() <= 1e-9 * plain(0));
        }
        for (int d : {3, -7, 8}) {
            delta.setDelta(d);
            delta.waitForResult();
            view.replotNow();
            QVERIFY2(view.deltaText() == QStringLiteral("Δ = %1").arg(d), qPrintable(view.deltaText()));
            QVERIFY2(view.qkRect()->axis(QCPAxis::atTop)->label().contains(QStringLiteral("Δ = %1").arg(d)),
                     qPrintable(view.qkRect()->axis(QCPAxis::atTop)->label()));
            QVERIFY(view.deltaSlider()->isVisible());
            for (int h = 0; h < 4; ++h) {
                const Spectrum expected = rotatedQueryKeySpectrum(a->weights(), h, a->rotary, d);
                QVERIFY(view.qkSpectrum(h).rank <= 8);
                QVERIFY((view.qkSpectrum(h).singular_values - expected.singular_values).cwiseAbs().maxCoeff() <=
                        1e-9 * expected.singular_values(0));
                // What the curve draws: every index, zeros past d_k.
                QCOMPARE(view.values(true, h).size(), 32);
            }
        }
    }

    void circuitViewDrawsTheRotatedProduct() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        CircuitView view;
        view.resize(1000, 700);
        view.setRotaryDelta(&delta);
        view.setAnalysis(a);
        delta.setAnalysis(a);
        view.setHead(1);
        delta.setHead(1);
        delta.setDelta(-3);
        delta.waitForResult();
        view.setCircuits(std::make_shared<const Circuits>(headCircuits(a->weights(), 1)));
        view.replotNow();
        QVERIFY2(view.title().contains(QStringLiteral("W_QK,i(Δ = -3)")), qPrintable(view.title()));
        QVERIFY(view.productShown(CircuitView::QK));
        const ThinFactors f = rotatedQueryKey(a->weights(), 1, a->rotary, -3);
        const Eigen::MatrixXd expected = f.A * f.B.transpose();
        QCPColorMapData* data = view.colorMap(CircuitView::QK)->data();
        double worst = 0;
        for (int r = 0; r < 32; ++r)
            for (int c = 0; c < 32; ++c) worst = std::max(worst, std::abs(data->cell(c, r) - expected(r, c)));
        QVERIFY2(worst <= 1e-4 * expected.cwiseAbs().maxCoeff(), qPrintable(QString::number(worst)));
    }

    void logitCurveAtTheCellsDeltaIsTheEngineLogit() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        RotaryView view;
        view.resize(900, 700);
        view.setRotaryDelta(&delta);
        view.setAnalysis(a);
        for (int head = 0; head < 4; ++head)
            for (auto [row, col] : {std::pair{8, 1}, std::pair{5, 5}, std::pair{3, 0}}) {
                view.setHead(head);
                view.setCell(row, col);
                view.replotNow();
                QCOMPARE(view.row(), row);
                QCOMPARE(view.cellDelta(), col - row);
                const LogitCurve& curve = view.curve();
                QCOMPARE(curve.deltas.front(), -8);
                QCOMPARE(curve.deltas.back(), 8);
                const double at = curve.logits[std::size_t(view.cellDelta() + 8)];
                const double engine = a->results.heads[std::size_t(head)].logits(row, col);
                QCOMPARE(view.engineLogit(), engine);
                QVERIFY2(std::abs(at - engine) <= 1e-4 * std::max(1.0, std::abs(engine)),
                         qPrintable(QStringLiteral("head %1 (%2, %3): %4 vs %5").arg(head).arg(row).arg(col).arg(at).arg(engine)));
                QCOMPARE(view.curveGraph()->data()->size(), 17);
                QVERIFY(view.curveTitle().contains(QStringLiteral("Δ = %1").arg(col - row)));
            }
    }

    void frequencySharesSumToOnePerHead() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        RotaryView view;
        view.resize(900, 700);
        view.setRotaryDelta(&delta);
        view.setAnalysis(a);
        delta.setAnalysis(a);
        delta.waitForResult();
        view.replotNow();
        QVERIFY2(!view.sharesTitle().contains(QStringLiteral("computing")), qPrintable(view.sharesTitle()));
        QCPColorMapData* data = view.sharesMap()->data();
        QCOMPARE(data->keySize(), 4);  // 3 pairs and the unrotated dims
        QCOMPARE(data->valueSize(), 4);
        for (int h = 0; h < 4; ++h) {
            double sum = 0;
            for (int p = 0; p < 4; ++p) sum += data->cell(p, h);
            QVERIFY2(std::abs(sum - 1.0) <= 1e-9, qPrintable(QStringLiteral("head %1: %2").arg(h).arg(sum)));
            const std::vector<double> expected = pairShares(a->weights(), h, a->rotary);
            for (int p = 0; p < 4; ++p) QCOMPARE(data->cell(p, h), expected[std::size_t(p)]);
        }
        // Without rotary positions: one sentence, no curve.
        view.setAnalysis(rotaryAnalysis(false));
        view.replotNow();
        QVERIFY2(view.note().contains(QStringLiteral("does not depend on the distance")), qPrintable(view.note()));
    }

    void aBurstOfDeltaChangesComputesAndShowsTheLatest() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        delta.setAnalysis(a);
        delta.setDelta(0);
        delta.waitForResult();
        const long long started = delta.jobsStarted(), requested = delta.jobsRequested();
        // No event is handled during the burst, so the first job cannot have been handed over:
        // it runs, the other 7 requests collapse into the one waiting request.
        for (int d = 1; d <= 8; ++d) delta.setDelta(d);
        QCOMPARE(delta.jobsStarted(), started + 1);
        QCOMPARE(delta.jobsRequested(), requested + 8);
        QVERIFY(!delta.result());  // nothing for Delta = 8 yet
        delta.waitForResult();
        QCOMPARE(delta.jobsStarted(), started + 2);
        QVERIFY(delta.result());
        QCOMPARE(delta.result()->circuits.delta, 8);
        for (int h = 0; h < 4; ++h) {
            const Spectrum expected = rotatedQueryKeySpectrum(a->weights(), h, a->rotary, 8);
            QVERIFY((delta.result()->circuits.qk[std::size_t(h)].singular_values - expected.singular_values).cwiseAbs().maxCoeff() <=
                    1e-9 * expected.singular_values(0));
        }
    }

    void logitCurveComesFromCoreInTheBackground() {
        const auto a = rotaryAnalysis();
        RotaryDelta delta;
        RotaryView view;
        view.resize(900, 700);
        view.setRotaryDelta(&delta);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        view.setHead(2);
        // A burst of cells on a visible view: each asks for its curve, the latest one is drawn.
        for (auto [row, col] : {std::pair{8, 0}, std::pair{7, 3}, std::pair{6, 6}, std::pair{8, 2}}) view.setCell(row, col);
        QTRY_VERIFY_WITH_TIMEOUT(view.row() == 8 && view.col() == 2 && !view.curveBusy(), 30000);
        const CellLogitCurve expected = cellLogitCurve(*a, 2, 8, 2);
        QCOMPARE(view.cellDelta(), expected.cell_delta);
        QCOMPARE(view.curve().deltas, expected.curve.deltas);
        QCOMPARE(view.curve().logits, expected.curve.logits);
        QCOMPARE(view.engineLogit(), expected.engine_logit);
        QCOMPARE(view.curveGraph()->data()->size(), int(expected.curve.deltas.size()));
        QVERIFY(view.curveTitle().contains(QStringLiteral("Δ = -6")));
    }

    void groupedQueryAttentionIsNamed() {
        const auto a = rotaryAnalysis();
        QCOMPARE(headTitle(3, 4, 2), QStringLiteral("head 3 · kv 1"));
        QCOMPARE(headTitle(3, 4, 4), QStringLiteral("head 3"));
        RankTableView table;
        table.setAnalysis(a);
        QCOMPARE(table.item(0, 0)->text(), QStringLiteral("■0 · kv 0"));
        QCOMPARE(table.item(3, 0)->text(), QStringLiteral("■3 · kv 1"));
        RotaryDelta delta;
        table.setRotaryDelta(&delta);
        delta.setAnalysis(a);
        delta.setDelta(5);
        delta.waitForResult();
        QVERIFY2(table.horizontalHeaderItem(1)->text().contains(QStringLiteral("Δ=5")),
                 qPrintable(table.horizontalHeaderItem(1)->text()));
        HeadGridView grid;
        grid.resize(1200, 500);
        grid.setAnalysis(a);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        grid.replot(QCustomPlot::rpImmediateRefresh);
        bool named = false;
        for (int i = 0; i < grid.axisRectCount(); ++i)
            named = named || grid.axisRect(i)->axis(QCPAxis::atTop)->label().contains(QStringLiteral("head 2 · kv 1"));
        QVERIFY(named);
    }
};

HEADSCOPE_QTEST_MAIN(TestRotaryViews)
#include "test_rotary_views.moc"
