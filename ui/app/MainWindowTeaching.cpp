// MainWindow in the classroom: presets, lessons and their steps, presentation mode.
#include "MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QGuiApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QScreen>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>

#include "ControlsDock.h"
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "DockTitleBar.h"
#include "HeadGridView.h"
#include "LessonDock.h"
#include "Session.h"
#include "RankTableView.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "Teaching.h"
#include "TrainingTab.h"
#include "TypesetText.h"
#include "ViewRegistry.h"

namespace headscope::ui {

void MainWindow::applyPreset(const lessons::Preset& preset) {
    ViewOptions o = options_;
    o.cell_numbers = false;  // a preset without numbers in the cells turns them off
    setViewOptions(applyViewSettings(o, preset.session.view));
    setConfig(preset.session.config, tr("preset: %1").arg(QString::fromStdString(preset.name)));
    status_->showNote(tr("Preset: %1").arg(QString::fromStdString(preset.name)));
}

void MainWindow::applyLessonStep(const lessons::LessonStep& step) {
    ViewOptions o = options_;
    o.cell_numbers = false;
    const ViewEntry* entry = findView(step.show);
    o.show_logits = entry && entry->show_logits;
    o = applyViewSettings(o, step.session.view);
    if (presentation_) o.font_scale = std::max(o.font_scale, options_.font_scale);
    setViewOptions(o);
    // The Edit menu's "Undo ..." names the step; a menu cannot typeset, so a title in the
    // notation ("2 d_model d_k against d_model^2") gives way to the step's number.
    const QString title = QString::fromStdString(lessons::plainText(step.title));
    const bool numbered = typeset::hasNotation(title) && lesson_dock_ && lesson_dock_->lesson();
    setConfig(step.session.config, numbered ? tr("lesson %1, step %2").arg(lesson_dock_->lesson()->number).arg(lesson_dock_->step() + 1)
                                            : tr("lesson step: %1").arg(title));
    session_->setHead(step.head);
    // The rows the step names first (1024 x 768 at 2x has no room for the whole table).
    if (CostView* costs = costView()) costs->setNamedSection(step.show == "costs" ? QString::fromStdString(step.focus) : QString());
    // Q, K and V, which a small room shows only as the page's first row.
    if (FusedProjectionsView* projections = projectionsView())
        projections->setActivationsFirst(step.show == "projections" && step.focus == "activations");
    // "In the window the status line shows it": also on its one line in a low window.
    status_->setLeadingFact(step.focus == "equivalence" ? StatusPanel::Fact::Equivalence : StatusPanel::Fact::Parameters);
    // The Training tab's page the step names, where the tab shows one at a time (lesson 7 at 2x).
    if (auto* training = findChild<TrainingTab*>(); training && step.show == "training")
        training->showPart(QString::fromStdString(step.focus));
    showView(step.show);
    arrangeForLesson(step.show);
}

void MainWindow::arrangeForLesson(const std::string& show) {
    // F5 in a wide or compact room keeps its own arrangement; a small one needs this one too.
    if (!lesson_dock_ || room_ == Room::Wide || (presentation_ && room_ != Room::Small)) return;
    const QSize before = size();
    const ViewEntry* entry = findView(show);
    controls_->hide();
    const bool spectra = entry && entry->place == ViewPlace::SpectrumDock;
    if (!spectra) spectrum_dock_->hide();
    const bool strip = room_ == Room::Small;
    // The dock moved first: on the way it is hidden for a moment, and a hidden lesson gives the
    // views back everything (openLesson), which would undo what follows.
    const Qt::DockWidgetArea area = strip ? Qt::BottomDockWidgetArea : Qt::RightDockWidgetArea;
    if (dockWidgetArea(lesson_dock_) != area || lesson_dock_->isFloating()) {
        lesson_dock_->setFloating(false);
        addDockWidget(area, lesson_dock_);
    }
    // A small room (1024 x 768 at 2x) has no width for the heads beside the spectra and the rank
    // table (650 px of 512): a step on them shows them alone, the strip under the whole width.
    setCorner(Qt::BottomLeftCorner, strip ? Qt::BottomDockWidgetArea : Qt::LeftDockWidgetArea);
    tabs_->setVisible(!(strip && spectra));
    // Alone above the strip, the spectra need no title bar (the step's text names them): its
    // height goes to the text ("Look at" was below the fold at 2x), and no cut title shows.
    setDockTitleBarHidden(spectrum_dock_, strip && spectra);
    // There, too, the spectra and the rank table one at a time: the one the step names.
    spectrum_->setVisible(!(strip && spectra) || show != "ranks");
    rank_table_->setVisible(!(strip && spectra) || show == "ranks");
    lesson_dock_->setStrip(strip);  // a strip grows to its text (LessonDock::fitStrip)
    if (!strip) resizeDocks({lesson_dock_}, {std::min(320, width() * 3 / 10)}, Qt::Horizontal);
    if (spectra) QMetaObject::invokeMethod(this, &MainWindow::fitRankTable, Qt::QueuedConnection);  // once laid out
    clampOnceLaidOut(before);  // a dock placed on the way can grow the window past the screen's edge
}

std::string MainWindow::shownStepView() const {
    if (!lesson_dock_ || !lesson_dock_->isVisible() || !lesson_dock_->lesson()) return {};
    return lesson_dock_->lesson()->steps[std::size_t(lesson_dock_->step())].show;
}

void MainWindow::arrangeForCurrentStep() {
    if (shownStepView().empty()) return;
    const std::string show = shownStepView();
    showView(show);
    arrangeForLesson(show);
}

bool MainWindow::openLesson(int number, QString* error) {
    QString why;
    const std::optional<lessons::Lesson> lesson = loadLesson(number, &why);
    if (!lesson) {
        if (error) *error = why;
        else QMessageBox::warning(this, tr("Cannot open the lesson"), why);
        return false;
    }
    const QSize before = size();
    if (!lesson_dock_) {
        lesson_dock_ = new LessonDock(this);
        // Below the view as a strip where the room is small (arrangeForLesson), else beside it.
        const bool strip = room_ == Room::Small;
        addDockWidget(strip ? Qt::BottomDockWidgetArea : Qt::RightDockWidgetArea, lesson_dock_);
        lesson_dock_->setStrip(strip);
        if (!strip) resizeDocks({lesson_dock_}, {320}, Qt::Horizontal);
        applyFontScale();
        // Closing the lesson gives the views back whatever its last step hid (arrangeForLesson).
        connect(lesson_dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible || lesson_dock_->isVisible()) return;  // hidden, not merely behind a tab
            tabs_->show();
            spectrum_->show();
            rank_table_->show();
            setDockTitleBarHidden(spectrum_dock_, false);
            setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
            // The parts the step named go back once the dock stays closed: F5 in a room it makes
            // small re-docks the lesson, hiding it for a moment (the step's focus was lost there).
            QTimer::singleShot(0, this, [this] {
                if (lesson_dock_->isVisible()) return;
                status_->setLeadingFact(StatusPanel::Fact::Parameters);
                if (CostView* costs = costView()) costs->setNamedSection(QString());  // the table in its own order
                if (FusedProjectionsView* projections = projectionsView()) projections->setActivationsFirst(false);
            });
        });
    }
    lesson_dock_->show();
    lesson_dock_->raise();
    lesson_dock_->setLesson(*lesson);
    clampOnceLaidOut(before);  // the new dock grew the window (1024 x 874 on a 1024 x 768 screen at 2x)
    return true;
}

void MainWindow::showView(const std::string& show) {
    const ViewEntry* entry = findView(show);
    if (!entry) return;  // loadLesson checked every step's view against the registry
    if (entry->place == ViewPlace::SpectrumDock) {  // below the heads whose spectra it shows
        showTab(tabTitle(*findView("heads")));
        spectrum_dock_->show();
        spectrum_dock_->raise();
        return;
    }
    showTab(tabTitle(*entry));
}

void MainWindow::setPresentationMode(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    presentation_action_->setChecked(on);
    if (on) {
        options_before_presentation_ = options_;
        state_before_presentation_ = saveState();
        maximized_before_presentation_ = isMaximized() || room_ != Room::Wide;
        // Larger fonts for the back row; not in a small room (1024 x 768 at 2x), where the screen's
        // scale already enlarged them and more would push the step's text and view off the screen.
        ViewOptions o = options_;
        o.font_scale = std::max(o.font_scale, room_ == Room::Small ? 1.0 : 1.75);
        setViewOptions(o);
        // Those fonts leave a 1024 x 768 or 1280 x 720 screen the room of a small one (585 x 439
        // at 1.75x): the docks close and a lesson's text goes below its view, as at 2x.
        room_before_presentation_ = room_;
        const QScreen* shown_on = screen() ? screen() : QGuiApplication::primaryScreen();
        if (shown_on && room_ != Room::Small && roomFor(shown_on->geometry().size() / o.font_scale) == Room::Small) {
            const QByteArray initial = initial_state_;
            arrangeDocks(Room::Small);
            initial_state_ = initial;  // View > Restore layout keeps restoring the window's own
        }
        // High contrast around the plots (the plots keep their white paper and black ink).
        QPalette p = palette();
        p.setColor(QPalette::Window, Qt::black);
        p.setColor(QPalette::WindowText, Qt::white);
        p.setColor(QPalette::Base, QColor(16, 16, 16));
        p.setColor(QPalette::Text, Qt::white);
        p.setColor(QPalette::Button, QColor(40, 40, 40));
        p.setColor(QPalette::ButtonText, Qt::white);
        p.setColor(QPalette::Highlight, QColor(255, 216, 77));
        p.setColor(QPalette::HighlightedText, Qt::black);
        setPalette(p);
        controls_->hide();  // F6 brings them back when needed
        // The menu bar's height goes to the view and the lesson (36 px of 768 at 2x); its actions
        // keep their shortcuts (F5, F6, Page Up / Page Down) as the window's own.
        for (QAction* action : menuBar()->findChildren<QAction*>())
            if (!action->shortcut().isEmpty() && !actions().contains(action)) addAction(action);
        menuBar()->hide();
        spectrum_dock_->hide();  // the heads get the height; lesson steps on spectra show it again
        grid_->setHoverHighlight(true);
        showFullScreen();
        // A step already showing the spectra or the rank table keeps them (F5 on lesson 1 step 2
        // left its strip alone on the screen).
        arrangeForCurrentStep();
        // The strip's text again once the full-screen layout settled (the menu bar's height is free).
        if (lesson_dock_) QTimer::singleShot(0, lesson_dock_, &LessonDock::fitStrip);
        status_->showNote(tr("F5 leaves · F6 controls"));
    } else {
        setPalette(QPalette());
        menuBar()->show();
        grid_->setHoverHighlight(false);
        ViewOptions o = options_;
        o.font_scale = options_before_presentation_.font_scale;
        setViewOptions(o);
        restoreState(state_before_presentation_);
        if (room_ != room_before_presentation_) {
            room_ = room_before_presentation_;
            updateSpectrumTitle();
            arrangeForCurrentStep();  // the lesson beside its view again, the strip's text as before
        }
        // Back to a window that fits the screen (issue 21), not the geometry full screen replaced.
        if (full_screen_->isChecked()) {
            showFullScreen();
        } else if (maximized_before_presentation_) {
            showMaximized();
            fitToScreen();
        } else {
            showNormal();
            fitToScreen();
        }
    }
}

}  // namespace headscope::ui
