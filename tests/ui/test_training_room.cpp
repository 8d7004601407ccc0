// Lesson 7 and the Training tab in the room a screen gives them (issue 21 item 3), on real X
// screens (training_room.cmake runs it by xvfb_run.sh at 1024 x 768 and 1280 x 720, scale 1 and
// 2 — 512 x 384 and 640 x 360 logical at 2x — and at full HD), the window as headscope opens it:
//  - each lesson-7 step on the Training tab shows the part its "focus" names (the loss curves,
//    the head scores, the probe attention, the settings) where the tab shows one page at a
//    time; that part is on screen (the settings' form may scroll within its own area, never
//    sideways), the tab scrolls in no direction, a plot's axis rect is at
//    least kLessonAxisRect and each attention map at least kLessonMap (logical px); where the
//    curves and the head scores stand one above the other, the named one is the higher;
//  - every axis label of the curves and head scores is whole: each line no longer than its axis,
//    the labelled rect within the plot, in every step and on every page of the plain tab;
//  - the step's text fits its strip, or its scroll bar shows that it goes on (printed).
// The run is paused as soon as a step starts it: a few training steps, not the lesson's hundreds.
#include <QScrollArea>
#include <QSignalSpy>
#include <QTabBar>
#include <QTextBrowser>
#include <QtTest>
#include "QtTestGroup.h"

#include "LessonDock.h"
#include "HeadScoresView.h"
#include "MainWindow.h"
#include "ProbeAttentionView.h"
#include "TextBoxes.h"
#include "TrainingCurvesView.h"
#include "TrainingTab.h"
#include "WindowTestSupport.h"

using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

const QSize kLessonAxisRect(200, 60);  // a named plot's least axis rect in a lesson step, logical px
const QSize kLessonMap(40, 40);        // each head's attention map's least axis rect

// The page a step's focus names.
TrainingTab::Page pageNamed(const std::string& focus) {
    if (focus == "curves") return TrainingTab::CurvesPage;
    if (focus == "scores") return TrainingTab::ScoresPage;
    if (focus == "attention") return TrainingTab::AttentionPage;
    if (focus == "settings") return TrainingTab::SettingsPage;
    return TrainingTab::NoPage;
}

// Every axis label of the shown Training plots whole (empty), else what is cut.
QString cutLabels(TrainingTab* tab) {
    QStringList cut;
    for (QCustomPlot* plot : {static_cast<QCustomPlot*>(tab->curves()), static_cast<QCustomPlot*>(tab->scores())}) {
        if (!plot->isVisible()) continue;
        plot->replot();
        for (QCPAxis* axis : plot->axisRect()->axes()) {
            const QString why = cutAxisLabel(axis);
            if (!why.isEmpty()) cut << QStringLiteral("%1 (%2x%3): %4").arg(plot->objectName()).arg(plot->width()).arg(plot->height()).arg(why);
        }
    }
    return cut.join(QStringLiteral("; "));
}

}  // namespace

class TestTrainingRoom : public QObject {
    Q_OBJECT

private:
    void open(MainWindow& window) {
        const QString error = showFitted(window);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

private slots:
    void lessonSevenStepsShowWhatTheyName() {
        MainWindow window(noSettings());
        open(window);
        QString error;
        QVERIFY2(window.openLesson(7, &error), qPrintable(error));
        LessonDock* dock = window.lessonDock();
        auto* tab = window.findChild<TrainingTab*>();
        QVERIFY(dock && tab);
        for (int k = 0; k < dock->stepCount(); ++k) {
            const auto& step = dock->lesson()->steps[std::size_t(k)];
            if (step.show != "training") continue;
            QSignalSpy shown(tab, &TrainingTab::frameShown);
            dock->goToStep(k);
            tab->pauseTraining();  // the view is the question here, not how far the run gets
            QVERIFY(shown.wait(60000));
            settle();
            QScrollArea* area = pageScroll(tab);
            QVERIFY(area);
            const QString where = QStringLiteral("lesson 7 step %1 (focus %2): window %3x%4, tab %5x%6, room %7%8")
                                      .arg(k + 1).arg(QString::fromStdString(step.focus)).arg(window.width()).arg(window.height())
                                      .arg(area->viewport()->width()).arg(area->viewport()->height()).arg(int(tab->room()))
                                      .arg(tab->isCompact() ? QStringLiteral(", compact") : QString());
            const TrainingTab::Page named = pageNamed(step.focus);
            QVERIFY2(named != TrainingTab::NoPage, qPrintable(where + QStringLiteral(": the step names no part of the tab")));
            // The page it names, where the tab shows pages (the plots' page for a plot beside the others).
            if (tab->room() == TrainingTab::Room::Pages) QCOMPARE(tab->shownPage(), named);
            if (tab->room() == TrainingTab::Room::Plots)
                QCOMPARE(tab->shownPage(), named == TrainingTab::SettingsPage ? named : TrainingTab::PlotsPage);
            QVERIFY2(scrolled(area).isEmpty(), qPrintable(where + QStringLiteral(": the tab scrolls: ") + scrolled(area)));
            QWidget* part = named == TrainingTab::CurvesPage ? static_cast<QWidget*>(tab->curves())
                            : named == TrainingTab::ScoresPage ? static_cast<QWidget*>(tab->scores())
                            : named == TrainingTab::AttentionPage ? static_cast<QWidget*>(tab->attention())
                                                                  : tab->findChild<QWidget*>(QStringLiteral("training_settings_scroll"));
            const QString off = offScreen(part, window, area);
            QVERIFY2(off.isEmpty(), qPrintable(where + QStringLiteral(": ") + part->objectName() + QStringLiteral(" ") + off +
                                               QStringLiteral("; the tab %1, its least %2x%3").arg(describe(tab->geometry()))
                                                   .arg(tab->minimumSizeHint().width()).arg(tab->minimumSizeHint().height())));
            // Where the curves and the head scores share the height, the one named has the larger part.
            if (tab->curves()->isVisible() && tab->scores()->isVisible() &&
                (named == TrainingTab::CurvesPage || named == TrainingTab::ScoresPage)) {
                QWidget* other = named == TrainingTab::CurvesPage ? static_cast<QWidget*>(tab->scores()) : static_cast<QWidget*>(tab->curves());
                QVERIFY2(part->height() > other->height(), qPrintable(QStringLiteral("%1: %2 %3 px high, %4 %5").arg(where, part->objectName())
                                                                          .arg(part->height()).arg(other->objectName()).arg(other->height())));
            }
            QString measured;
            if (named == TrainingTab::SettingsPage) {  // the form, 15 rows, scrolls in its own area where it is low
                auto* settings = static_cast<QScrollArea*>(part);
                QVERIFY2(!settings->horizontalScrollBar()->isVisible(), qPrintable(where + QStringLiteral(": the settings scroll sideways")));
                measured = QStringLiteral("settings %1 of %2 px high").arg(settings->viewport()->height()).arg(settings->widget()->height());
            } else if (auto* plot = qobject_cast<QCustomPlot*>(part)) {
                plot->replot();
                const QRect axes = plot->axisRect()->rect();
                measured = QStringLiteral("axis rect %1x%2").arg(axes.width()).arg(axes.height());
                QVERIFY2(axes.width() >= kLessonAxisRect.width() && axes.height() >= kLessonAxisRect.height(),
                         qPrintable(QStringLiteral("%1: %2's %3, at least %4x%5 wanted").arg(where, part->objectName(), measured)
                                        .arg(kLessonAxisRect.width()).arg(kLessonAxisRect.height())));
            } else if (named == TrainingTab::AttentionPage) {
                auto* plot = tab->attention()->findChild<QCustomPlot*>();
                QVERIFY(plot && tab->attention()->map(0));
                plot->replot();
                for (int m = 0; tab->attention()->map(m); ++m) {
                    const QRect r = tab->attention()->map(m)->keyAxis()->axisRect()->rect();
                    measured = QStringLiteral("map %1x%2%3").arg(r.width()).arg(r.height())
                                   .arg(tab->attention()->inOneRow() ? QStringLiteral(", heads in one row") : QString());
                    QVERIFY2(r.width() >= kLessonMap.width() && r.height() >= kLessonMap.height(),
                             qPrintable(QStringLiteral("%1: head %2's %3, at least %4x%5 wanted").arg(where).arg(m).arg(measured)
                                            .arg(kLessonMap.width()).arg(kLessonMap.height())));
                }
            }
            const QString cut = cutLabels(tab);
            QVERIFY2(cut.isEmpty(), qPrintable(where + QStringLiteral(": ") + cut));
            // The step's text: whole in its strip or column, or its scroll bar says there is more.
            // Under load the browser may lay its text out after the tab's last resize: waited for.
            QTextBrowser* text = dock->textBrowser();
            const auto needed = [text] { return int(text->document()->size().height()); };
            QTRY_VERIFY2_WITH_TIMEOUT(needed() <= text->viewport()->height() + 1 || text->verticalScrollBar()->isVisible(),
                                      qPrintable(QStringLiteral("%1: the text needs %2 px of %3 and shows no scroll bar")
                                                     .arg(where).arg(needed()).arg(text->viewport()->height())),
                                      5000);
            const int room = text->viewport()->height();
            qInfo("%s: %s; text %d px in %d%s", qPrintable(where), qPrintable(measured), needed(), room,
                  needed() <= room + 1 ? "" : " (scrolls)");
        }
    }

    void trainingAxisLabelsAreWholeOnEveryPage() {
        MainWindow window(noSettings());
        open(window);
        QString error;
        QVERIFY2(window.showTab(QStringLiteral("Training"), &error), qPrintable(error));
        auto* tab = window.findChild<TrainingTab*>();
        QVERIFY(tab);
        QSignalSpy shown(tab, &TrainingTab::frameShown);
        QVERIFY(tab->frame() || shown.wait(60000));
        settle();
        QTabBar* pages = tab->pages();
        const int count = tab->room() == TrainingTab::Room::Wide ? 1 : pages->count();
        for (int i = 0; i < count; ++i) {
            if (tab->room() != TrainingTab::Room::Wide) {
                QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(i).center());
                settle();
            }
            const QString cut = cutLabels(tab);
            QVERIFY2(cut.isEmpty(), qPrintable(QStringLiteral("window %1x%2, room %3, page %4: %5")
                                                   .arg(window.width()).arg(window.height()).arg(int(tab->room()))
                                                   .arg(i).arg(cut)));
        }
        qInfo("window %dx%d, room %d: curves labels \"%s\" / \"%s\", head scores \"%s\"", window.width(), window.height(),
              int(tab->room()), qPrintable(tab->curves()->yAxis->label().replace('\n', '|')),
              qPrintable(tab->curves()->yAxis2->label().replace('\n', '|')), qPrintable(tab->scores()->yAxis->label().replace('\n', '|')));
    }
};

HEADSCOPE_QTEST_MAIN(TestTrainingRoom)
#include "test_training_room.moc"
