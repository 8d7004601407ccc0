// The Training tab, the Ablation tab and the status panel in a small room (issue 21 item 1/3),
// on real X screens (screen_fit.cmake runs it by xvfb_run.sh at 1024 x 768 and 1280 x 720, scale 1
// and 2 — 512 x 384 and 640 x 360 logical at 2x — and at full HD), the window as headscope opens it:
//  - the Training tab scrolls in no direction, its loss plot's axis rect is at least
//    kAxisRect (200 x 120 logical px) and Start, Pause, Step, Reset and the readout are on screen;
//  - the status panel is one line where the window is under StatusPanel::kCompactBelow (450
//    logical px) high, its other facts in the tool tip, and three lines otherwise;
//  - the Ablation tab with no head off says so on one line, whole (fewer words where narrow), and
//    knocks the picked head out from there, without a scroll bar.
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTabBar>
#include <QtTest>
#include "QtTestGroup.h"

#include "AblationTab.h"
#include "AttentionView.h"
#include "ControlsDock.h"
#include "NoModelNote.h"
#include "FittedLabel.h"
#include "HeadPatternsView.h"
#include "LessonDock.h"
#include "MainWindow.h"
#include "OutputChangeView.h"
#include "Session.h"
#include "StatusPanel.h"
#include "TrainingCurvesView.h"
#include "TrainingTab.h"
#include "WindowTestSupport.h"

using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

const QSize kAxisRect(200, 120);  // the loss plot's least axis rect, logical px

// The distinct lines the panel's shown labels stand on.
int shownLines(const StatusPanel* panel) {
    QList<int> tops;
    for (const QLabel* label : panel->findChildren<QLabel*>())
        if (label->isVisible() && !tops.contains(label->geometry().top())) tops << label->geometry().top();
    return int(tops.size());
}

}  // namespace

class TestSmallRoom : public QObject {
    Q_OBJECT

private:
    // The window as `headscope --tab NAME` opens it on this screen (gui_main: fitted, shown,
    // the tab chosen at once, before anything is laid out).
    void open(MainWindow& window, const QString& tab) {
        window.fitToScreen();
        window.show();
        QString error;
        QVERIFY2(window.showTab(tab, &error), qPrintable(error));
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        settle();
    }

private slots:
    void trainingTabFitsTheRoom() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Training"));
        auto* tab = window.findChild<TrainingTab*>();
        QVERIFY(tab);
        QSignalSpy shown(tab, &TrainingTab::frameShown);
        QVERIFY(tab->frame() || shown.wait(60000));
        settle();
        QScrollArea* area = pageScroll(tab);
        QVERIFY(area);
        const QString where = QStringLiteral("window %1x%2, tab %3x%4, room %5")
                                  .arg(window.width()).arg(window.height()).arg(area->viewport()->width())
                                  .arg(area->viewport()->height()).arg(int(tab->room()));
        QVERIFY2(scrolled(area).isEmpty(), qPrintable(where + QStringLiteral(": the tab scrolls: ") + scrolled(area)));
        for (QWidget* w : {static_cast<QWidget*>(tab->startButton()), static_cast<QWidget*>(tab->pauseButton()),
                           static_cast<QWidget*>(tab->stepButton()), static_cast<QWidget*>(tab->resetButton()),
                           static_cast<QWidget*>(tab->readout()), static_cast<QWidget*>(tab->curves())}) {
            const QString off = offScreen(w, window, area);
            QVERIFY2(off.isEmpty(), qPrintable(where + QStringLiteral(": ") + w->objectName() + QStringLiteral(" ") + off));
        }
        // A whole wording: with the tab's model named first where it fits (issue 36 item 7).
        QVERIFY2(tab->readout()->text().startsWith(QStringLiteral("step ")) ||
                     tab->readout()->text().startsWith(QStringLiteral("this tab's model, ")),
                 qPrintable(tab->readout()->text()));
        TrainingCurvesView* curves = tab->curves();
        curves->replot();
        const QRect axes = curves->axisRect()->rect();
        QVERIFY2(axes.width() >= kAxisRect.width() && axes.height() >= kAxisRect.height(),
                 qPrintable(QStringLiteral("%1: the loss plot's axis rect %2 (plot %3x%4), at least %5x%6 wanted")
                                .arg(where, describe(axes)).arg(curves->width()).arg(curves->height())
                                .arg(kAxisRect.width()).arg(kAxisRect.height())));
        // Where the settings are a page, choosing it shows them in place of the plots, and back.
        if (tab->room() != TrainingTab::Room::Wide) {
            QTabBar* pages = tab->pages();
            QVERIFY(pages->isVisible());
            QCOMPARE(pages->tabText(pages->count() - 1), QStringLiteral("Settings"));
            QVERIFY(!tab->seedBox()->isVisible());
            QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(pages->count() - 1).center());
            settle();
            QVERIFY(tab->seedBox()->isVisible());
            QVERIFY(!curves->isVisible());
            QVERIFY(tab->startButton()->isVisible());
            QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(0).center());
            settle();
            QVERIFY(curves->isVisible());
        } else {  // beside the plots, the settings whole: no field cut at the right
            QVERIFY(tab->seedBox()->isVisible());
            auto* settings = tab->findChild<QScrollArea*>(QStringLiteral("training_settings_scroll"));
            QVERIFY(settings);
            QVERIFY2(settings->viewport()->width() >= settings->widget()->minimumSizeHint().width(),
                     qPrintable(QStringLiteral("%1: the settings get %2 px of the %3 they need")
                                    .arg(where).arg(settings->viewport()->width()).arg(settings->widget()->minimumSizeHint().width())));
        }
        auto* settings_area = tab->findChild<QScrollArea*>(QStringLiteral("training_settings_scroll"));
        qInfo("%s: loss axis rect %dx%d; settings %d in %d (needs %d), seed box right edge %d", qPrintable(where), axes.width(), axes.height(),
              settings_area->widget()->width(), settings_area->viewport()->width(), settings_area->widget()->minimumSizeHint().width(),
              tab->seedBox()->geometry().right());
    }

    // The status line's first fact keeps both its numbers whole at 2x fonts: lesson 2 step 3
    // (d_k = d_model, the merged matrix half the factors) printed "W_Q+W_K 8,192 vs W_QK 4,096
    // params (0.5…" at 1024 x 768, 2x.
    void statusFactKeepsItsNumbersWhole() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Heads"));
        QString error;
        QVERIFY2(window.openLesson(2, &error), qPrintable(error));
        window.lessonDock()->goToStep(2);
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        settle();
        auto* fact = window.statusPanel()->findChild<FittedLabel*>(QStringLiteral("status_params"));
        QVERIFY(fact && fact->isVisible());
        QVERIFY2(fact->text().contains(QStringLiteral("8,192")) && fact->text().contains(QStringLiteral("4,096")) &&
                     !fact->text().endsWith(QChar(0x2026)),
                 qPrintable(QStringLiteral("the status line shows \"%1\" in %2 px").arg(fact->text()).arg(fact->width())));
        qInfo("status fact: %s", qPrintable(fact->text()));
    }

    void statusPanelLinesFollowTheHeight() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Heads"));
        auto* panel = window.statusPanel();
        QVERIFY(panel);
        const bool low = window.height() < StatusPanel::kCompactBelow;
        QCOMPARE(panel->isCompact(), low);
        QCOMPARE(shownLines(panel), low ? 1 : 3);
        if (low) {  // the facts not shown are on hover
            const QString tip = panel->findChild<FittedLabel*>(QStringLiteral("status_params"))->toolTip();
            QVERIFY2(tip.contains(QStringLiteral("rank W_QK")) && tip.contains(QStringLiteral("Logits agree")),
                     qPrintable(tip));
            QVERIFY(panel->toolTip().contains(QStringLiteral("rank W_QK")));
        }
        qInfo("window %dx%d: the status panel %d px, %d line(s)", window.width(), window.height(), panel->height(), shownLines(panel));
        // The same window made low, then high again: one line, then three.
        window.showNormal();
        window.resize(window.width(), 400);
        settle();
        if (window.height() < StatusPanel::kCompactBelow) QCOMPARE(shownLines(panel), 1);
        panel->setCompact(false);
        settle();
        QCOMPARE(shownLines(panel), 3);
    }

    void ablationEmptyStateOffersAHead() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Ablation"));
        AblationTab* tab = window.ablationTab();
        QVERIFY(tab);
        QScrollArea* area = pageScroll(tab);
        QVERIFY(area);
        QVERIFY(window.session()->ablation().empty());
        QWidget* empty = tab->emptyState();
        QVERIFY2(offScreen(empty, window, area).isEmpty(), qPrintable(offScreen(empty, window, area)));
        QVERIFY2(scrolled(area).isEmpty(), qPrintable(scrolled(area)));
        // One line, whole: the whole sentence, or fewer words, never cut with "…".
        auto* sentence = empty->findChild<FittedLabel*>(QStringLiteral("ablation_empty_text"));
        QVERIFY(sentence && sentence->fullText().startsWith(QStringLiteral("No head is knocked out: pick one to see")));
        QVERIFY2(sentence->text().startsWith(QStringLiteral("No head is")) && !sentence->text().endsWith(QChar(0x2026)) &&
                     QFontMetrics(sentence->font()).horizontalAdvance(sentence->text()) <= sentence->contentsRect().width(),
                 qPrintable(QStringLiteral("\"%1\" in %2 px").arg(sentence->text()).arg(sentence->width())));
        // On the line of the picker and its button (not a column of words above them).
        const int line = tab->headPicker()->geometry().center().y();
        QVERIFY(std::abs(sentence->geometry().center().y() - line) <= 2 && std::abs(tab->knockOutButton()->geometry().center().y() - line) <= 2);
        QVERIFY(sentence->geometry().right() < tab->headPicker()->geometry().left());
        QVERIFY(!tab->outputChange()->isVisible());  // no empty plot under it
        QComboBox* picker = tab->headPicker();
        QCOMPARE(picker->count(), window.session()->analysis()->weights().heads);
        QCOMPARE(picker->itemData(1).toString(), QStringLiteral("0.1"));
        QCOMPARE(picker->itemText(1), QStringLiteral("head 1"));  // a single layer's heads by number (issue 36 item 16)
        const QString off = offScreen(tab->knockOutButton(), window, area);
        QVERIFY2(off.isEmpty(), qPrintable(off));
        picker->setCurrentIndex(1);
        QTest::mouseClick(tab->knockOutButton(), Qt::LeftButton);
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        settle();
        QVERIFY(window.session()->ablation().contains(0, 1));
        QVERIFY(tab->outputChange()->isVisible());
        // The line stays and offers the heads still on (issue 36 item 16: it disappeared).
        QVERIFY(empty->isVisible() && picker->isVisible());
        QCOMPARE(picker->count(), window.session()->analysis()->weights().heads - 1);
        QCOMPARE(picker->findData(QStringLiteral("0.1")), -1);
        QVERIFY2(sentence->fullText().contains(QStringLiteral("another")), qPrintable(sentence->fullText()));
        picker->setCurrentIndex(picker->findData(QStringLiteral("0.2")));
        QTest::mouseClick(tab->knockOutButton(), Qt::LeftButton);
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        QVERIFY(window.session()->ablation().contains(0, 1) && window.session()->ablation().contains(0, 2));
    }

    // The controls, shown with F6 where a small room hides them, show every field whole: no
    // field cut at the dock's right edge behind a horizontal scroll bar ("d_model 64 [slider cut]",
    // "Heads 8 [cut]" at 1024 x 768, 2x), and the views keep at least a third of the window.
    void controlsShowEveryFieldWhole() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Heads"));
        ControlsDock* controls = window.controls();
        QCOMPARE(controls->toggleViewAction()->shortcut(), QKeySequence(Qt::Key_F6));
        if (!controls->isVisible()) {
            controls->toggleViewAction()->trigger();  // F6
            settle();
        }
        QVERIFY(controls->isVisible());
        auto* area = controls->findChild<QScrollArea*>();
        QVERIFY(area);
        const int needed = area->widget()->minimumSizeHint().width();
        const QString where = QStringLiteral("window %1x%2: the controls' fields need %3 px, the dock shows %4")
                                  .arg(window.width()).arg(window.height()).arg(needed).arg(area->viewport()->width());
        QVERIFY2(!area->horizontalScrollBar()->isVisible() && area->viewport()->width() >= needed, qPrintable(where));
        QVERIFY2(window.centralWidget()->width() >= window.width() / 3,
                 qPrintable(where + QStringLiteral(", the views %1").arg(window.centralWidget()->width())));
        for (QWidget* field : {static_cast<QWidget*>(controls->findChild<QSlider*>(QStringLiteral("d_model_slider"))),
                               static_cast<QWidget*>(controls->findChild<QSpinBox*>(QStringLiteral("heads")))}) {
            QVERIFY(field);
            const QRect in_viewport(field->mapTo(area->viewport(), QPoint(0, 0)), field->size());
            QVERIFY2(in_viewport.right() < area->viewport()->width(),
                     qPrintable(where + QStringLiteral(": %1 at %2").arg(field->objectName(), describe(in_viewport))));
        }
        qInfo("%s", qPrintable(where));
    }

    // Before a model is open, the Model and "Looks at" tabs say what they will show and link to the
    // two ways of opening one (an empty plot with a colour bar stood there), all of it in the tab;
    // a link triggers the File menu's action.
    void modelViewsOfferToOpenAModel() {
        MainWindow window(noSettings());
        open(window, QStringLiteral("Heads"));
        QAction* folder = nullptr;
        for (QAction* action : window.findChildren<QAction*>())
            if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_M)) folder = action;
        QVERIFY(folder);
        QObject::disconnect(folder, &QAction::triggered, &window, nullptr);  // no folder dialog in a test
        // The single layer's heads look at something too: the Looks at tab shows them, one row.
        QString error;
        QVERIFY2(window.showTab(QStringLiteral("Looks at"), &error), qPrintable(error));
        auto* patterns = qobject_cast<HeadPatternsView*>(window.tabView("head_patterns"));
        QVERIFY(patterns);
        QTRY_VERIFY_WITH_TIMEOUT(patterns->plot()->isVisible() && !patterns->noModelNote()->isVisible(),
                                 headscope::test::kBackgroundWaitMs);
        const headscope::model::Trace layer = headscope::model::layerPatterns(*window.session()->analysis());
        QVERIFY(patterns->shares() == headscope::model::headPatternShares(layer, patterns->pattern()));
        QCOMPARE(patterns->shares().rows(), 1);
        QCOMPARE(patterns->shares().cols(), window.session()->config().heads);
        {  // the Model tab asks for a model
            const QString tab = QStringLiteral("Model");
            QVERIFY2(window.showTab(tab, &error), qPrintable(error));
            settle();
            auto* view = qobject_cast<AttentionView*>(window.tabView("model"));
            QVERIFY(view);
            auto* note = view->findChild<NoModelNote*>();
            QVERIFY(note && note->isVisible());
            QVERIFY(!view->plot()->isVisible());
            for (QLabel* label : {note->sentence(), note->links()}) {
                QVERIFY(label->isVisible());
                const QRect in_view(label->mapTo(view, QPoint(0, 0)), label->size());
                QVERIFY2(view->rect().contains(in_view) && label->height() >= label->heightForWidth(label->width()),
                         qPrintable(QStringLiteral("%1: \"%2\" at %3 in a view of %4 x %5")
                                        .arg(tab, label->text(), describe(in_view)).arg(view->width()).arg(view->height())));
            }
            QVERIFY(note->links()->text().contains(QStringLiteral("Ctrl+Shift+M")));
            QSignalSpy triggered(folder, &QAction::triggered);
            emit note->links()->linkActivated(QStringLiteral("folder"));
            QCOMPARE(triggered.count(), 1);
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestSmallRoom)
#include "test_small_room.moc"
