// The Training tab (issue 23): training runs on the worker thread, the curves, head scores and
// probe heatmaps hold the trainer's own numbers (the same seed run directly in the test), Pause
// stops it, Reset clears it, a bad setting is explained and keeps the last run, and "Open in
// HeadScope" hands a GPT-2 folder that loads.
#include <QCheckBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QThread>
#include <QtTest>
#include "QtTestGroup.h"

#include "HeadScoresView.h"
#include "ProbeAttentionView.h"
#include "TrainingCurvesView.h"
#include "TrainingTab.h"
#include "io/Gpt2Checkpoint.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

// A small model, so the test stays fast under sanitizers.
QSpinBox* box(TrainingTab& tab, const char* name) {
    return tab.findChild<QSpinBox*>(QStringLiteral("training_") + QLatin1String(name));
}

void smallSettings(TrainingTab& tab) {
    box(tab, "d_model")->setValue(16), box(tab, "vocab")->setValue(20), box(tab, "context")->setValue(16);
    box(tab, "max_repeat")->setValue(8), box(tab, "min_repeat")->setValue(3), box(tab, "batch")->setValue(8);
}

bool waitFor(const std::function<bool()>& done, int ms = 20000) {
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < ms) QTest::qWait(10);
    return done();
}

}  // namespace

class TestTrainingTab : public QObject {
    Q_OBJECT
private slots:
    void stepsShowTheTrainersNumbers() {
        TrainingTab tab;
        smallSettings(tab);
        QVERIFY(waitFor([&] { return tab.frame() && tab.frame()->config.d_model == 16 && tab.frame()->steps == 0; }));
        for (int i = 0; i < 50; ++i) QTest::mouseClick(tab.stepButton(), Qt::LeftButton);
        QVERIFY(waitFor([&] { return tab.frame()->steps == 50; }));
        // The same settings trained here, directly: the curves hold exactly its numbers.
        const train::TrainConfig c = tab.settings();
        QCOMPARE(c.eval_every, 50);
        train::Trainer reference(c);
        for (int i = 0; i < 50; ++i) reference.step();
        QCOMPARE(tab.frame()->evaluations.size(), std::size_t(2));  // steps 0 and 50
        const train::Evaluation& e = reference.evaluations().back();
        QCPGraph* loss = tab.curves()->curve(TrainingCurvesView::Loss);
        QCOMPARE(loss->data()->size(), 2);
        QCOMPARE(loss->scatterStyle().shape(), QCPScatterStyle::ssNone);  // a line now, no dots
        QCOMPARE(loss->data()->at(1)->key, 50.0);
        QCOMPARE(loss->data()->at(1)->value, e.loss);
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::RepeatedLoss)->data()->at(1)->value, e.repeated_loss);
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::TrainLoss)->data()->at(0)->value, e.train_loss);
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::RepeatedAccuracy)->data()->at(1)->value,
                 100 * e.repeated_accuracy);
        QCOMPARE(tab.scores()->scoreGraph(3, true)->data()->at(1)->value, e.prefix_matching[3]);
        QCOMPARE(tab.scores()->scoreGraph(0, false)->data()->at(1)->value, e.previous_token[0]);
        // The probe heatmap of L1H1 holds the snapshot's weights (row 0 on top, masked cells NaN).
        const train::AttentionSnapshot* shown = tab.attention()->shown();
        QVERIFY(shown);
        const Eigen::MatrixXf& w = reference.snapshots().back().weights[3];
        QCPColorMapData* data = tab.attention()->map(3)->data();
        QCOMPARE(data->cell(2, 5), double(w(5, 2)));
        QVERIFY(std::isnan(data->cell(5, 2)));
    }

    void runsOnItsThreadPausesAndResets() {
        TrainingTab tab;
        smallSettings(tab);
        QVERIFY(waitFor([&] { return tab.frame() && tab.frame()->config.d_model == 16; }));
        const QThread* worker = nullptr;
        for (QThread* t : tab.findChildren<QThread*>()) worker = t;
        QVERIFY(worker && worker->isRunning());
        QTest::mouseClick(tab.startButton(), Qt::LeftButton);
        QVERIFY(waitFor([&] { return tab.frame()->running && tab.frame()->steps >= 60; }));
        QVERIFY(tab.frame()->evaluations.size() >= 2);  // step 50 evaluated
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::Loss)->data()->size(), int(tab.frame()->evaluations.size()));
        QVERIFY(tab.attention()->slider()->maximum() >= 1);
        QTest::mouseClick(tab.pauseButton(), Qt::LeftButton);
        QVERIFY(waitFor([&] { return !tab.frame()->running; }));
        const long long paused_at = tab.frame()->steps;
        QTest::qWait(300);
        QCOMPARE(tab.frame()->steps, paused_at);
        // Scrubbing back shows an older snapshot.
        tab.attention()->slider()->setValue(0);
        QCOMPARE(tab.attention()->shown()->step, 0LL);

        QTest::mouseClick(tab.resetButton(), Qt::LeftButton);
        QVERIFY(waitFor([&] { return tab.frame()->steps == 0; }));
        QCOMPARE(tab.frame()->evaluations.size(), std::size_t(1));
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::Loss)->data()->size(), 1);
        // Step 0's one point is drawn, a dot on each curve (issue 36 item 17: empty curves beside "loss 4.17").
        QCOMPARE(tab.curves()->curve(TrainingCurvesView::Loss)->scatterStyle().shape(), QCPScatterStyle::ssDisc);
        QCOMPARE(tab.scores()->scoreGraph(0, true)->scatterStyle().shape(), QCPScatterStyle::ssDisc);
        QCOMPARE(tab.attention()->slider()->maximum(), 0);
    }

    // Start and Pause from the keyboard (issue 21): Ctrl+Return and Ctrl+., named in their tooltips.
    void startAndPauseHaveShortcuts() {
        TrainingTab tab;
        smallSettings(tab);
        tab.show();
        QApplication::setActiveWindow(&tab);
        QVERIFY(QTest::qWaitForWindowActive(&tab));
        QVERIFY(waitFor([&] { return tab.frame() && tab.frame()->config.d_model == 16; }));
        const QKeySequence start(Qt::CTRL | Qt::Key_Return), pause(Qt::CTRL | Qt::Key_Period);
        QCOMPARE(tab.startButton()->shortcut(), start);
        QCOMPARE(tab.pauseButton()->shortcut(), pause);
        QVERIFY(tab.startButton()->toolTip().contains(start.toString(QKeySequence::NativeText)));
        QVERIFY(tab.pauseButton()->toolTip().contains(pause.toString(QKeySequence::NativeText)));
        QTest::keyClick(&tab, Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(waitFor([&] { return tab.frame()->running; }));
        QTest::keyClick(&tab, Qt::Key_Period, Qt::ControlModifier);
        QVERIFY(waitFor([&] { return !tab.frame()->running; }));
    }

    void badSettingsAreExplainedAndOpenHandsAFolder() {
        TrainingTab tab;
        smallSettings(tab);
        QVERIFY(waitFor([&] { return tab.frame() && tab.frame()->config.d_model == 16; }));
        box(tab, "heads")->setValue(3);  // 3 heads do not divide 16
        QVERIFY(!tab.startButton()->isEnabled());
        bool explained = false;
        for (QLabel* label : tab.findChildren<QLabel*>()) explained |= label->text().contains("not divisible");
        QVERIFY(explained);
        QCOMPARE(tab.frame()->config.heads, 2);  // the last valid run stays
        box(tab, "heads")->setValue(2);
        QVERIFY(tab.startButton()->isEnabled());

        QSignalSpy open(&tab, &TrainingTab::openModelRequested);
        tab.openInHeadScope();
        QVERIFY(open.wait(10000));
        const QString dir = open.at(0).at(0).toString();
        const model::ModelPtr model = io::loadGpt2Checkpoint(dir.toStdString());
        QCOMPARE(model->config.n_embd, 16);
        QCOMPARE(model->config.vocab_size, 20);
    }

    // The curves' legend at every width the tab can give them, at the window's font and twice
    // it (issue 21: "accuracy (right" and "repeated hal" at 1400 x 900): each entry's name whole
    // within its entry and the legend within the plot; shortened only where one entry alone is
    // wider than the plot, and then the tool tip gives every name in full.
    void legendEntriesAreWhole() {
        for (const double factor : {1.0, 2.0}) {
            TrainingCurvesView curves;
            QFont font = curves.font();
            font.setPointSizeF(font.pointSizeF() * factor);
            curves.setFont(font);
            curves.show();
            QVERIFY(QTest::qWaitForWindowExposed(&curves));
            for (int width = 260; width <= 1300; width += 20) {
                curves.resize(width, 400);
                QApplication::processEvents();
                curves.replot();
                QCPLegend* legend = curves.legend;
                const QString where = QStringLiteral("font x%1, %2 px wide, %3 columns").arg(factor).arg(width).arg(curves.legendColumns());
                QVERIFY2(curves.rect().contains(legend->outerRect()), qPrintable(where + QStringLiteral(": the legend leaves the plot")));
                const QFontMetrics metrics(legend->font());
                for (int i = 0; i < curves.graphCount(); ++i) {
                    const auto which = TrainingCurvesView::Curve(i);
                    QCPAbstractLegendItem* item = legend->itemWithPlottable(curves.curve(which));
                    QVERIFY(item);
                    const QString name = curves.curve(which)->name(), full = curves.curveName(which);
                    const QMargins m = item->margins();
                    const auto needs = [&](const QString& text) {
                        return m.left() + legend->iconSize().width() + legend->iconTextPadding() + metrics.horizontalAdvance(text) + m.right();
                    };
                    QVERIFY2(item->outerRect().width() >= needs(name) && curves.rect().contains(item->outerRect()),
                             qPrintable(where + QStringLiteral(": \"%1\" has %2 px, needs %3").arg(name).arg(item->outerRect().width()).arg(needs(name))));
                    if (name == full) continue;
                    QVERIFY2(factor > 1 && curves.legendColumns() == 1 && needs(full) > width - legend->margins().left() - legend->margins().right(),
                             qPrintable(where + QStringLiteral(": \"%1\" shortened to \"%2\" though it fits").arg(full, name)));
                    QVERIFY2(curves.toolTip().contains(full), qPrintable(where + QStringLiteral(": the tool tip lacks ") + full));
                }
            }
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestTrainingTab)
#include "test_training_tab.moc"
