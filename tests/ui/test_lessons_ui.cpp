// Teaching with HeadScope, driven through the real window: lessons step by step with live
// numbers, presets, presentation mode, and the legibility rules at a projector's 1024 x 768.

#include <QAction>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <cmath>
#include <QtTest>
#include "QtTestGroup.h"

#include "WindowTestSupport.h"
#include "Analysis.h"
#include "ControlsDock.h"
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "HeadDetailView.h"
#include "HeadsTab.h"
#include "HeadGridView.h"
#include "LessonDock.h"
#include "MainWindow.h"
#include "StatusPanel.h"
#include "RankTableView.h"
#include "Session.h"
#include "SpectrumView.h"
#include "Teaching.h"
#include "ViewRegistry.h"
#include "io/SessionFile.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// The tab a step's view is in, as the registry places it (the spectra: in a dock below the Heads tab).
QString tabFor(const std::string& show) {
    const ViewEntry* entry = findView(show);
    return entry && entry->place == ViewPlace::Tab ? tabTitle(*entry) : QStringLiteral("Heads");
}

QAction* actionNamed(MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    qFatal("no action %s", qPrintable(text));
    return nullptr;
}

}  // namespace

class TestLessons : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_lessons"));
    }

    // Every step of every lesson: its configuration in the session, its head selected, its tab
    // shown, its text filled with the numbers of the analysis on screen, "Step k of n".
    void everyStepAppliesItsConfigurationAndShowsLiveNumbers() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        int steps_checked = 0;
        for (int n = 1; n <= kLessonCount; ++n) {
            QString error;
            QVERIFY2(window.openLesson(n, &error), qPrintable(error));
            LessonDock* dock = window.lessonDock();
            QVERIFY(dock && dock->isVisible());
            const lessons::Lesson lesson = *dock->lesson();
            // A lesson that trains and opens the model it trained (7) has its own test: test_lesson7_ui.
            if (std::any_of(lesson.steps.begin(), lesson.steps.end(), [](const auto& s) { return s.actions.any(); })) continue;
            for (int k = 0; k < dock->stepCount(); ++k) {
                if (k > 0) dock->nextButton()->click();
                QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
                const lessons::LessonStep& step = lesson.steps[std::size_t(k)];
                QCOMPARE(dock->step(), k);
                QCOMPARE(dock->counterText(), QStringLiteral("Step %1 of %2").arg(k + 1).arg(lesson.steps.size()));
                QVERIFY(window.session()->config() == step.session.config);
                QVERIFY2(window.controls()->config() == step.session.config,
                         (io::configToJson(window.controls()->config()) + io::configToJson(step.session.config)).c_str());
                QCOMPARE(window.session()->head(), step.head);
                QCOMPARE(window.centralTabs()->tabText(window.centralTabs()->currentIndex()).remove('&'), tabFor(step.show));
                QCOMPARE(window.viewOptions().show_logits, step.show == "logits");
                const auto analysis = window.session()->analysis();
                QVERIFY(analysis && analysis->config == step.session.config);
                QTextDocument expected;
                expected.setHtml(stepHtml(lesson, k, lessons::placeholderValues(*analysis, step.head)));
                QCOMPARE(dock->shownText(), expected.toPlainText());
                if (qEnvironmentVariableIsSet("HEADSCOPE_TEST_SCREENSHOTS") && k == 1)
                    window.grab().save(qEnvironmentVariable("HEADSCOPE_TEST_SCREENSHOTS") +
                                       QStringLiteral("/lesson_%1_step_2.png").arg(n));
                ++steps_checked;
            }
            QVERIFY(!dock->nextButton()->isEnabled());
        }
        qInfo("checked %d steps in the window", steps_checked);
    }

    void pageDownAndPageUpTurnTheSteps() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.openLesson(5));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.lessonDock()->nextAction()->shortcut(), QKeySequence(Qt::Key_PageDown));
        QCOMPARE(window.lessonDock()->previousAction()->shortcut(), QKeySequence(Qt::Key_PageUp));
        window.headGrid()->setFocus();
        QTest::keyClick(window.headGrid(), Qt::Key_PageDown);
        QCOMPARE(window.lessonDock()->step(), 1);
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.session()->config().mask, MaskKind::Causal);
        QTest::keyClick(window.headGrid(), Qt::Key_PageUp);
        QCOMPARE(window.lessonDock()->step(), 0);
    }

    void resetThisStepPutsItsSettingsBack() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.openLesson(1));
        QVERIFY(window.waitForCompleteUpdate(60000));
        const Config step_config = window.lessonDock()->lesson()->steps[0].session.config;
        typeIntoSpinBox(window.findChild<QSpinBox*>(QStringLiteral("heads")), QStringLiteral("2"));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.session()->config().heads, 2);
        QVERIFY(window.lessonDock()->shownText().contains(QStringLiteral("You changed the settings")));
        QVERIFY(window.lessonDock()->shownText().contains(QStringLiteral("passes through only dk = 32")));
        window.findChild<QPushButton*>(QStringLiteral("lesson_reset"))->click();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QVERIFY(window.session()->config() == step_config);
        QVERIFY(!window.lessonDock()->shownText().contains(QStringLiteral("You changed the settings")));
    }

    void presetsApplyAndTheTinyOnePrintsTheCells() {
        QString error;
        const QList<lessons::Preset> presets = loadPresets(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(presets.size(), 6);
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        for (const lessons::Preset& preset : presets) {
            window.applyPreset(preset);
            QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
            QVERIFY(window.session()->config() == preset.session.config);
            window.headGrid()->replotNow();
            const bool tiny = preset.session.config.d_model == 8;
            QCOMPARE(window.viewOptions().cell_numbers, tiny);
            const Analysis& a = *window.session()->analysis();
            const int cells = a.config.heads * a.nQuery() * a.nKeyValue();
            QCOMPARE(window.headGrid()->cellNumbersShown(), tiny ? cells : 0);
            if (tiny) qInfo("tiny preset: %d numbers drawn in the cells", cells);
        }
    }

    // A projector: 1024 x 768 or 1280 x 720 at font scale 2 with the controls hidden (as in
    // presentation mode, whose full screen the offscreen platform cannot give), and the normal
    // window at 1x.
    void gridKeepsWordsAndNothingIsCutAt1024x768AndFontScale2_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<double>("scale");
        QTest::newRow("1024x768 x2 controls hidden") << 1024 << 768 << 2.0;
        QTest::newRow("1280x720 x2 controls hidden") << 1280 << 720 << 2.0;
        QTest::newRow("1024x768 x1") << 1024 << 768 << 1.0;
    }
    void gridKeepsWordsAndNothingIsCutAt1024x768AndFontScale2() {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(double, scale);
        MainWindow window(noSettings());
        window.resize(width, height);
        // The grid alone (View > Selected head large off); beside the large head it is thumbnails
        // (headsTabShowsTheSelectedHeadLargeWithEveryWord).
        window.headsTab()->setFocusWanted(false);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        if (scale > 1) {
            ViewOptions options = window.viewOptions();
            options.font_scale = scale;
            window.setViewOptions(options);
            window.controls()->hide();
        }
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QTest::qWait(50);
        HeadGridView* grid = window.headGrid();
        grid->replotNow();
        grid->replotNow();  // the second pass sees the first layout's cell sizes
        const Analysis& a = *window.session()->analysis();
        const QStringList words = [&] {
            QStringList w;
            for (const std::string& t : a.input.query.tokens) w << QString::fromStdString(t);
            return w;
        }();
        qInfo("grid %dx%d, font scale %.2f, key stride %d, query stride %d", grid->width(), grid->height(),
              window.viewOptions().font_scale, grid->keyLabelStride(), grid->queryLabelStride());
        const QRect bounds = grid->viewport();
        for (int h = 0; h < grid->headCount(); ++h) {
            QCPAxisRect* rect = grid->headRect(h);
            for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
                auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
                QVERIFY2(ticker, "token axis shows positions instead of words");
                int shown = 0;
                const auto ticks = ticker->ticks();
                for (auto it = ticks.cbegin(); it != ticks.cend(); ++it) {
                    if (it.value().isEmpty()) continue;
                    QVERIFY2(isWordLabel(it.value(), int(std::lround(it.key())), words), qPrintable(it.value()));
                    ++shown;
                }
                QVERIFY2(shown >= 2, "fewer than two words on a token axis");
            }
            QVERIFY2(inside(bounds, rect->outerRect()), qPrintable(QStringLiteral("head %1 outside the plot").arg(h)));
            const QCPAxis* top = rect->axis(QCPAxis::atTop);
            QVERIFY2(QFontMetrics(top->labelFont()).horizontalAdvance(top->label()) <= rect->outerRect().width(),
                     qPrintable(top->label()));
        }
        for (QCPTextElement* element : {grid->titleElement(), grid->subtitleElement()}) {
            QVERIFY(element);
            const QFontMetrics fm(element->font());
            for (const QString& line : element->text().split(QLatin1Char('\n')))
                QVERIFY2(fm.horizontalAdvance(line) <= bounds.width(), qPrintable(QStringLiteral("cut: ") + line));
            QVERIFY(inside(bounds, element->outerRect()));
        }
        QVERIFY(inside(bounds, grid->colorScale(0)->outerRect()));
        const QFontMetrics bar_fm(grid->colorScale(0)->axis()->labelFont());
        for (const QString& line : grid->colorScale(0)->label().split(QLatin1Char('\n')))
            QVERIFY2(bar_fm.horizontalAdvance(line) <= grid->colorScale(0)->rect().height(),
                     qPrintable(QStringLiteral("colour bar label cut: ") + line));
        if (qEnvironmentVariableIsSet("HEADSCOPE_TEST_SCREENSHOTS"))
            window.grab().save(qEnvironmentVariable("HEADSCOPE_TEST_SCREENSHOTS") +
                               QStringLiteral("/grid_%1x%2_%3.png").arg(width).arg(height).arg(scale));
    }

    // Focus and context, the default (issue 21): at 1024 x 768 and 1x the selected head is drawn
    // large with every one of the 11 demo words on both axes, the other heads beside it as
    // thumbnails without words, and a click on a thumbnail selects that head.
    void headsTabShowsTheSelectedHeadLargeWithEveryWord() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QTest::qWait(50);
        QVERIFY(window.headsTab()->focusWanted());
        QVERIFY2(window.headsTab()->focusShown(), "no large head at 1024 x 768, 1x");
        HeadGridView* grid = window.headGrid();
        QVERIFY(grid->thumbnails());
        grid->replotNow();
        for (int h = 0; h < grid->headCount(); ++h)
            for (QCPAxis* axis : {grid->headRect(h)->axis(QCPAxis::atBottom), grid->headRect(h)->axis(QCPAxis::atLeft)})
                QVERIFY2(!axis->tickLabels(), "a thumbnail carries words");
        HeadDetailView* large = window.headFocus();
        large->replotNow();
        QStringList words;
        for (const std::string& t : window.session()->analysis()->input.query.tokens) words << QString::fromStdString(t);
        QCOMPARE(words.size(), 11);
        QCPAxisRect* rect = large->plot()->axisRect();
        for (QCPAxis* axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom)}) {
            const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
            QVERIFY2(ticker && axis->tickLabels(), "the large head's axis shows positions, not words");
            QCOMPARE(QStringList(ticker->ticks().values()), words);
        }
        qInfo("large head %dx%d, its heatmap %dx%d; thumbnails %dx%d", large->width(), large->height(), rect->width(),
              rect->height(), grid->width(), grid->height());
        // A click on head 3's thumbnail selects head 3: the large head follows.
        const QPoint centre = grid->headRect(3)->rect().center();
        QTest::mouseClick(grid, Qt::LeftButton, Qt::NoModifier, centre);
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->head(), 3, headscope::test::kBackgroundWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(large->head(), 3, headscope::test::kBackgroundWaitMs);
    }

    void controlsDoNotMoveWhenAProblemIsShown() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* heads = window.findChild<QSpinBox*>(QStringLiteral("heads"));
        auto* problems = window.findChild<QLabel*>(QStringLiteral("problems"));
        QVERIFY(!problems->isVisible());
        const QPoint before = heads->mapTo(&window, QPoint(0, 0));
        typeIntoSpinBox(window.findChild<QSpinBox*>(QStringLiteral("d_model")), QStringLiteral("100"));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QVERIFY(!window.session()->problems().isEmpty());
        QVERIFY(problems->isVisible());
        QCOMPARE(heads->mapTo(&window, QPoint(0, 0)), before);
    }

    void randomTokensWithTextIsStatedAsAContradiction() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        typeIntoSpinBox(window.findChild<QSpinBox*>(QStringLiteral("seq_len")), QStringLiteral("50"));
        auto* problems = window.findChild<QLabel*>(QStringLiteral("problems"));
        QVERIFY(problems->isVisible());
        QVERIFY2(problems->text().contains(QStringLiteral("Random tokens 50 is ignored while the text box holds text")),
                 qPrintable(problems->text()));
    }

    void sessionsKeepTheViewSettings() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.headscope.json"));
        ViewOptions options;
        options.show_logits = true;
        options.shared_scale = false;
        options.font_scale = 1.5;
        options.token_positions = true;
        {
            MainWindow window(noSettings());
            window.setViewOptions(options);
            QVERIFY(window.waitForCompleteUpdate(60000));
            QString error;
            QVERIFY2(window.saveSession(path, &error), qPrintable(error));
        }
        MainWindow window(noSettings());
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.viewOptions().show_logits, false);
        QString error;
        QVERIFY2(window.openSession(path, &error), qPrintable(error));
        QVERIFY(window.viewOptions() == options);
    }

    void presentationModeIsLargeFullScreenAndShowsTheHoveredValue() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        actionNamed(window, QStringLiteral("&Presentation mode"))->trigger();
        QVERIFY(window.presentationMode());
        QVERIFY(window.windowState() & Qt::WindowFullScreen);
        QVERIFY(window.viewOptions().font_scale >= 1.75);
        QVERIFY(!window.controls()->isVisible());
        QVERIFY(window.headGrid()->hoverHighlight());
        QVERIFY(!window.menuBar()->isVisible());  // its height goes to the view
        HeadGridView* grid = window.headGrid();
        QTest::qWait(200);  // the full-screen resize arrives asynchronously
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        grid->replotNow();
        QCPAxisRect* rect = grid->headRect(0);
        const QPoint cell(int(rect->axis(QCPAxis::atBottom)->coordToPixel(0)), int(rect->axis(QCPAxis::atLeft)->coordToPixel(0)));
        QTest::mouseMove(grid, cell);
        QTRY_VERIFY_WITH_TIMEOUT(grid->hoverLabel() && grid->hoverLabel()->isVisible(),
                                 headscope::test::kBackgroundWaitMs);
        const float w00 = window.session()->analysis()->results.heads[0].weights(0, 0);
        QVERIFY2(grid->hoverLabel()->text().endsWith(QString::number(w00, 'f', 3)), qPrintable(grid->hoverLabel()->text()));
        QVERIFY(grid->hoverLabel()->font().pointSizeF() >= 18 * 1.75 - 0.01);
        if (qEnvironmentVariableIsSet("HEADSCOPE_TEST_SCREENSHOTS"))  // to look at it: a folder
            window.grab().save(qEnvironmentVariable("HEADSCOPE_TEST_SCREENSHOTS") + QStringLiteral("/presentation.png"));
        // F5 still leaves with the menu bar hidden: the window answers the menus' shortcuts.
        QApplication::setActiveWindow(&window);
        QTest::keyClick(&window, Qt::Key_F5);
        QVERIFY(!window.presentationMode());
        QVERIFY(window.menuBar()->isVisible());
        QCOMPARE(window.viewOptions().font_scale, 1.0);
        QVERIFY(!grid->hoverHighlight());
    }

    // F5 on a step that shows the spectra (lesson 1 step 2) or the rank table (lesson 6 step 3)
    // keeps them on the screen, in a compact room and in a small one (1024 x 768 at 2x): entering
    // presentation mode hid the spectrum dock, leaving the small room's strip alone on the screen.
    void presentationModeKeepsTheStepsSpectraAndRanks() {
        for (const QSize screen : {QSize(1024, 768), QSize(512, 384)}) {
            for (const auto& [lesson, step] : {std::pair{1, 2}, std::pair{6, 3}}) {
                MainWindow window(noSettings());
                window.layOutAsOnScreen(screen);
                window.show();
                QString error;
                QVERIFY2(window.openLesson(lesson, &error), qPrintable(error));
                window.lessonDock()->goToStep(step - 1);
                QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
                const bool ranks = window.lessonDock()->lesson()->steps[std::size_t(step - 1)].show == "ranks";
                QWidget* named = ranks ? static_cast<QWidget*>(window.rankTable()) : window.spectrumView();
                const QString where = QStringLiteral("F5 on lesson %1 step %2, screen %3 x %4")
                                          .arg(lesson).arg(step).arg(screen.width()).arg(screen.height());
                QVERIFY2(named->isVisible(), qPrintable(where + QStringLiteral(": not shown before F5")));
                window.setPresentationMode(true);
                QTest::qWait(100);
                QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
                QVERIFY2(named->isVisible() && named->height() >= 100,
                         qPrintable(QStringLiteral("%1: the view it names is %2 (%3 px high)")
                                        .arg(where, named->isVisible() ? QStringLiteral("shown") : QStringLiteral("hidden"))
                                        .arg(named->height())));
            }
        }
    }

    // A step that says "the status line shows it" (lesson 1 step 5, lesson 4 step 3) puts the
    // logits residuals on the status panel's one line in a low window (512 x 384: 1024 x 768 at
    // 2x), where the parameters stood; the next step gives the parameters back.
    void statusLineShowsTheResidualsTheStepNames() {
        for (const auto& [lesson, step] : {std::pair{1, 5}, std::pair{4, 3}}) {
            MainWindow window(noSettings());
            window.layOutAsOnScreen(QSize(512, 384));
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QString error;
            QVERIFY2(window.openLesson(lesson, &error), qPrintable(error));
            window.lessonDock()->goToStep(step - 1);
            QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
            QTest::qWait(50);
            auto* status = window.findChild<StatusPanel*>();
            QVERIFY(status && status->isCompact());
            auto* residuals = status->findChild<QWidget*>(QStringLiteral("status_equivalence"));
            auto* params = status->findChild<QWidget*>(QStringLiteral("status_params"));
            QVERIFY(residuals && params);
            const QString where = QStringLiteral("lesson %1 step %2").arg(lesson).arg(step);
            QVERIFY2(residuals->isVisible() && !params->isVisible(),
                     qPrintable(where + QStringLiteral(": the one status line shows the %1").arg(residuals->isVisible() ? "parameters too" : "parameters")));
            // Both residuals under their names, as the steps quote them (lesson 4: "0", the
            // per-head one; lesson 1: the merged one); one number, their maximum, read 7.5e-07
            // under lesson 4's "0".
            const auto& equivalence = *window.session()->analysis()->equivalence;
            const QString shown = static_cast<QLabel*>(residuals)->text();
            const auto number = [](double v) { return v == 0 ? QStringLiteral("0") : QString::number(v, 'e', 1); };
            QVERIFY2(shown.contains(QStringLiteral("per-head ") + number(equivalence.fused_vs_per_head)) &&
                         shown.contains(QStringLiteral("merged ")) && shown.contains(number(equivalence.factored_vs_merged)),
                     qPrintable(where + QStringLiteral(": the status line reads \"%1\"").arg(shown)));
            window.lessonDock()->goToStep(step);  // a step that names no status fact
            QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
            QVERIFY2(params->isVisible() && !residuals->isVisible(), qPrintable(where + QStringLiteral(" + 1: the parameters are not back")));
        }
    }

    // A step whose focus is "activations" (lesson 4 step 2: "the head blocks marked on Q, K and
    // V") puts the Projections page's activations first; the next step and closing the lesson
    // give the weights back their place, as closing gives the Costs table its own order.
    void focusedPartsGoBackWhenTheLessonCloses() {
        MainWindow window(noSettings());
        window.layOutAsOnScreen(QSize(512, 384));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY2(window.openLesson(4, &error), qPrintable(error));
        FusedProjectionsView* projections = window.projectionsView();
        QVERIFY(projections && !projections->activationsFirst());
        window.lessonDock()->goToStep(1);
        QVERIFY(projections->activationsFirst());
        window.lessonDock()->goToStep(3);
        QVERIFY(!projections->activationsFirst());
        QVERIFY2(window.openLesson(3, &error), qPrintable(error));
        QVERIFY(!projections->activationsFirst());  // lesson 3's first step names W_Q
        window.lessonDock()->goToStep(3);           // the costs' attention rows
        QCOMPARE(window.costView()->namedSection(), QStringLiteral("attention"));
        window.lessonDock()->close();
        QTRY_VERIFY_WITH_TIMEOUT(!window.lessonDock()->isVisible(), headscope::test::kBackgroundWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.costView()->namedSection(), QString(),
                                  headscope::test::kBackgroundWaitMs);  // once the dock stays closed
        QVERIFY2(window.openLesson(4, &error), qPrintable(error));
        window.lessonDock()->goToStep(1);
        window.lessonDock()->close();
        QTRY_VERIFY_WITH_TIMEOUT(!window.lessonDock()->isVisible(), headscope::test::kBackgroundWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!projections->activationsFirst(), headscope::test::kBackgroundWaitMs);
    }
};

HEADSCOPE_QTEST_MAIN(TestLessons)
#include "test_lessons_ui.moc"
