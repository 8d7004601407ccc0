// The progress bar while a model opens: loadCheckpoint's progress carried from a worker thread
// by LoadProgressRelay's queued signal; the bar shows below 1, hides at 1 and on finish(), and
// its Cancel button makes the running load's next stage refuse to go on.
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>
#include <QTest>
#include <algorithm>
#include <thread>

#include "QtTestGroup.h"

#include "LoadProgressBar.h"
#include "LoadProgressRelay.h"
#include "io/Checkpoint.h"

using namespace headscope;

class TestLoadProgress : public QObject {
    Q_OBJECT
private slots:
    void barAppearsWhileLoadingAndDisappearsAtTheEnd() {
        QMainWindow window;
        auto* bar = new ui::LoadProgressBar(&window);
        window.statusBar()->addPermanentWidget(bar);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!bar->isVisible());

        struct Seen {
            double fraction;
            bool visible;
            QString stage;
        };
        QList<Seen> seen;  // after the bar's own slot (connected first) has run
        const auto recording = connect(&ui::LoadProgressRelay::instance(), &ui::LoadProgressRelay::progress, this,
                [&](double fraction, const QString&) { seen.append({fraction, bar->isVisible(), bar->stage()}); });
        const std::string folder = std::string(HEADSCOPE_TEST_DATA_DIR) + "/gpt2/bf16_prefix_untied";
        std::thread worker([reporter = ui::LoadProgressRelay::instance().reporter(), folder]() {
            io::loadCheckpoint(folder, reporter);
        });
        worker.join();
        QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty() && seen.back().fraction == 1.0, headscope::test::kBackgroundWaitMs);
        QVERIFY(seen.size() >= 3);
        for (const Seen& s : seen.mid(0, seen.size() - 1)) QVERIFY2(s.visible, qPrintable(s.stage));
        QVERIFY(std::any_of(seen.begin(), seen.end(), [](const Seen& s) { return s.stage.contains("mapping layer 2 of 2"); }));
        QVERIFY(!seen.back().visible);
        QVERIFY(!bar->isVisible());
        disconnect(recording);

        bar->showProgress(0.4, "reading shard 1 of 2");
        QVERIFY(bar->isVisible());
        QCOMPARE(bar->percent(), 40);
        bar->finish();  // a failed load
        QVERIFY(!bar->isVisible());
    }

    void cancelStopsTheRunningLoad() {
        QMainWindow window;
        auto* bar = new ui::LoadProgressBar(&window);
        window.statusBar()->addPermanentWidget(bar);
        window.show();
        const io::LoadProgress reporter = ui::LoadProgressRelay::instance().reporter();
        QVERIFY(reporter(0.1, "reading config.json"));
        QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), headscope::test::kBackgroundWaitMs);
        QPushButton* cancel = bar->findChild<QPushButton*>();
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(!reporter(0.2, "converting layer 1 of 2"));
        QVERIFY(ui::LoadProgressRelay::instance().reporter()(0, "reading config.json"));  // the next load starts afresh
    }
};

HEADSCOPE_QTEST_MAIN(TestLoadProgress)
#include "test_load_progress.moc"
