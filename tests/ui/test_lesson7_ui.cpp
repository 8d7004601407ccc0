// Lesson 7, "How an induction head forms" (issue 23), run step by step in the real window with
// the lesson's own settings (seed 1) and budgets: the Training tab trains until each step's
// condition holds and pauses there, the trained model opens, and knocking out the layer-1 heads
// makes the second copy of the repeated string unpredictable.

#include <cmath>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QRegularExpression>
#include <QtTest>
#include "QtTestGroup.h"

#include "FittedLabel.h"
#include "LessonDock.h"
#include "ControlsDock.h"
#include "MainWindow.h"
#include "Session.h"
#include "Teaching.h"
#include "StatusPanel.h"
#include "TeachingActions.h"
#include "TrainingTab.h"
#include "ViewRegistry.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

class TestLessonSeven : public QObject {
    Q_OBJECT

private slots:
    void everyStepReachesWhatItSaysAndTheKnockOutIsApplied() {
        QElapsedTimer timer;
        timer.start();
        MainWindow window(noSettings());
        window.resize(1280, 800);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openLesson(7, &error), qPrintable(error));
        LessonDock* dock = window.lessonDock();
        TeachingActions* actions = dock->actions();
        auto* training = window.findChild<TrainingTab*>();
        QVERIFY(actions && training);
        const lessons::Lesson lesson = *dock->lesson();
        QCOMPARE(lesson.steps.size(), std::size_t(8));
        QStringList statuses;  // what the dock said of the run, step by step
        connect(actions, &TeachingActions::statusChanged, this, [&statuses](const QString& status) { statuses << status; });
        const auto plain = [](QString html) { return html.remove(QRegularExpression(QStringLiteral("<[^>]*>"))); };
        for (int k = 0; k < dock->stepCount(); ++k) {
            const lessons::LessonStep& step = lesson.steps[std::size_t(k)];
            statuses.clear();
            if (k > 0) dock->next();
            QCOMPARE(dock->step(), k);
            QTRY_VERIFY_WITH_TIMEOUT(actions->done(), 120000);
            if (step.actions.ablate) QTRY_VERIFY_WITH_TIMEOUT(window.session()->effects() != nullptr, 60000);
            QCOMPARE(window.centralTabs()->tabText(window.centralTabs()->currentIndex()).remove('&'),
                     tabTitle(*findView(step.show)));
            const auto& t = step.actions.training;
            if (t && t->run == lessons::TrainingAction::Run::Reset) {
                // The first frame of the run with the step's settings (the tab's start-up run has its defaults).
                QTRY_VERIFY_WITH_TIMEOUT(training->frame() && training->frame()->steps == 0 &&
                                             lessons::sameSettings(training->frame()->config, *t->settings),
                                         headscope::test::kBackgroundWaitMs);
                QCOMPARE(training->frame()->config.seed, std::uint64_t(1));
            }
            if (t && !t->until.empty()) {
                // The run paused where the step's condition held, within its budget, and the text says so.
                QVERIFY2(actions->reached(), qPrintable(actions->status()));
                const TrainingFramePtr f = training->frame();
                QVERIFY(f && f->steps <= t->budget);
                QVERIFY(lessons::conditionHolds(t->until, f->steps, f->evaluations.back(), f->config.heads));
                // One step count (issue 36 item 5: the readout said 152 beside "Reached: step 150"): the run
                // paused at the evaluation that reached it.
                QCOMPARE(f->steps, f->evaluations.back().step);
                QTRY_VERIFY_WITH_TIMEOUT(!training->frame()->running, headscope::test::kBackgroundWaitMs);
                QVERIFY2(dock->shownText().contains(QStringLiteral("Reached")), qPrintable(dock->shownText()));
                // Which model each line shows (issue 36 item 7): the tab's own, the status line the other tabs' layer.
                QVERIFY2(training->readout()->fullText().contains(QStringLiteral("this tab's model, %1 layers × %2 heads, d_model %3")
                                                                      .arg(f->config.layers).arg(f->config.heads).arg(f->config.d_model)),
                         qPrintable(training->readout()->fullText()));
                if (window.centralTabs()->currentWidget()->findChild<TrainingTab*>()) {
                    QCOMPARE(window.controls()->windowTitle(), QStringLiteral("Controls: other tabs' layer"));
                    QVERIFY2(window.statusPanel()->text().startsWith(QStringLiteral("Other tabs' layer: ")),
                             qPrintable(window.statusPanel()->text()));
                }
                qInfo("step %d: %s", k + 1, qPrintable(actions->status()));
                // While it trained the dock never said more than it says now, the text test_screen_fit fits
                // on a projector (a progress line one row longer overflowed 1024 x 768 at 2x under load).
                for (const QString& said : statuses)
                    QVERIFY2(plain(said).size() <= plain(actions->status()).size(), qPrintable(said + " / " + actions->status()));
            }
            if (step.actions.open_model) QVERIFY(window.session()->source().model != nullptr);
            if (step.actions.ablate) {
                QVERIFY(window.session()->ablation() == *step.actions.ablate);
                const auto trace = window.session()->trace();
                QVERIFY(trace && trace->options.ablation == *step.actions.ablate);
                QVERIFY2(dock->shownText().contains(QStringLiteral("Knocked out")), qPrintable(dock->shownText()));
                if (step.actions.ablate->heads.size() == 1) {  // "head 1.0 still copies: the second copy is still predicted"
                    // How surely each character is predicted depends on the last bits of 400 training
                    // steps, which differ between CPUs (vector width, fused multiply-add); one character
                    // at p ~ 0.4 may lose first place. The claim is about the copy, not one character:
                    // nearly all of it stays the first guess, and on average it stays likely.
                    const auto one = window.session()->effects();
                    QVERIFY(one && one->has_logprobs && one->after.tokens.size() == 23);
                    int top = 0;
                    double mean = 0;
                    for (std::size_t i = 12; i < 23; ++i) {  // the targets of the second copy: positions 13..23
                        top += one->after.tokens[i].top ? 1 : 0;
                        mean += one->after.tokens[i].logprob / 11;
                    }
                    qInfo("one head off: %d of 11 characters of the second copy still the first guess, mean log-probability %.2f",
                          top, mean);
                    QVERIFY(top >= 9);
                    QVERIFY(mean > std::log(0.5));
                }
            }
        }
        // Both induction heads off: every token of the second copy loses log-probability, by
        // several nats on average; one of them off (step 7) costs the second copy little.
        const auto effects = window.session()->effects();
        QVERIFY(effects && effects->has_logprobs);
        QCOMPARE(effects->ablation.heads.size(), std::size_t(2));
        const int n = int(effects->before.tokens.size());  // the 23 next-token predictions of 24 tokens
        QCOMPARE(n, 23);
        double change = 0;
        for (int i = 12; i < n; ++i) {  // the targets of the second copy: positions 13..23
            const double d = effects->after.tokens[std::size_t(i)].logprob - effects->before.tokens[std::size_t(i)].logprob;
            QVERIFY2(d < 0, qPrintable(QStringLiteral("position %1: %2").arg(i + 1).arg(d)));
            change += d / (n - 12);
        }
        qInfo("second copy: mean log-probability change %.2f nats; loss %.2f -> %.2f; the lesson took %.1f s",
              change, effects->before.loss, effects->after.loss, timer.elapsed() / 1000.0);
        QVERIFY(change < -2.0);
        QVERIFY(effects->after.loss > effects->before.loss + 1.0);
    }
};

HEADSCOPE_QTEST_MAIN(TestLessonSeven)
#include "test_lesson7_ui.moc"
