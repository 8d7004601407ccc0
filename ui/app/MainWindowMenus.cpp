// MainWindow's menus: File, Edit, View, Presets, Lessons, Help (moved from MainWindow.cpp unchanged).
#include "MainWindow.h"

#include <algorithm>

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QMenuBar>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

#include "AboutDialog.h"
#include "CircuitView.h"
#include "ConfigCommand.h"
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "HeadPatternsView.h"
#include "AblationTab.h"
#include "ModelDock.h"
#include "ModelOverviewView.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
#include "RankTableView.h"
#include "ViewBinding.h"
#include "ControlsDock.h"
#include "Export.h"
#include "HeadDetailDialog.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "HeadsTab.h"
#include "LessonDock.h"
#include "RecentFiles.h"
#include "Resources.h"
#include "Session.h"
#include "Setting.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "Teaching.h"
#include "TrainingTab.h"
#include "io/SessionFile.h"

namespace headscope::ui {

namespace {

constexpr double kZoomStep = 1.25;  // View > Larger / Smaller

}  // namespace

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open\u2026"), QKeySequence::Open, this, &MainWindow::openDialog);
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, &MainWindow::saveAs);
    QMenu* recent_menu = file->addMenu(tr("Recent &files"));
    recent_ = new RecentFiles(recent_menu, this);
    connect(recent_, &RecentFiles::openRequested, this, [this](const QString& path) {
        if (!openSession(path) && !QFileInfo::exists(path)) recent_->remove(path);
    });
    file->addSeparator();
    QAction* open_folder = file->addAction(tr("Open &model (Hugging Face folder)\u2026"), QKeySequence(Qt::CTRL | Qt::Key_M),
                                           this, &MainWindow::openModelDialog);
    QAction* open_cache = file->addAction(tr("Open model from the Hugging Face &cache\u2026"),
                                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this, &MainWindow::openCachedModelDialog);
    // The views of a whole model offer the same two before one is open.
    modelOverview()->noModelNote()->setOpenActions(open_folder, open_cache);
    if (auto* patterns = qobject_cast<HeadPatternsView*>(tabView("head_patterns")))
        patterns->noModelNote()->setOpenActions(open_folder, open_cache);
    file->addAction(tr("Open &layer (PyTorch attention, .safetensors)\u2026"), this, &MainWindow::openLayerDialog);
    file->addAction(tr("Back to &generated weights"), session_, &Session::useGeneratedWeights);
    file->addSeparator();
    file->addAction(tr("&Export\u2026"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::exportDialog);
    file->addAction(tr("&Copy view"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, &MainWindow::copyView);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = session_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = session_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    full_screen_ = view->addAction(tr("&Full screen"), QKeySequence(Qt::Key_F11), this, [this](bool on) {
        on ? showFullScreen() : showNormal();
    });
    full_screen_->setCheckable(true);
    // Each key once: the platform's ZoomOut is Ctrl+- itself on Linux, and a sequence given twice
    // is ambiguous, so it did nothing (issue 21).
    const auto keys = [](QList<QKeySequence> sequences) {
        QList<QKeySequence> unique;
        for (const QKeySequence& k : sequences)
            if (!k.isEmpty() && !unique.contains(k)) unique << k;
        return unique;
    };
    QAction* larger = view->addAction(tr("&Larger"), this, [this]() { zoom(kZoomStep); });
    larger->setShortcuts(keys({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(QKeySequence::ZoomIn)}));
    QAction* smaller = view->addAction(tr("&Smaller"), this, [this]() { zoom(1 / kZoomStep); });
    smaller->setShortcuts(keys({QKeySequence(Qt::CTRL | Qt::Key_Minus), QKeySequence(QKeySequence::ZoomOut)}));
    // Normal size: the fonts and the docks as the window first showed them.
    view->addAction(tr("&Normal size"), QKeySequence(Qt::CTRL | Qt::Key_0), this, [this]() { zoom(0); });
    view->addSeparator();
    view->addAction(controls_->logitsAction());
    view->addAction(controls_->sharedScaleAction());
    view->addSeparator();
    view->addAction(controls_->toggleViewAction());
    view->addAction(spectrum_dock_->toggleViewAction());
    connect(controls_->logitsAction(), &QAction::toggled, this, [this](bool on) {
        ViewOptions o = options_;
        o.show_logits = on;
        setViewOptions(o);
    });
    connect(controls_->sharedScaleAction(), &QAction::toggled, this, [this](bool on) {
        ViewOptions o = options_;
        o.shared_scale = on;
        setViewOptions(o);
    });
    // "0 The", "1 animal": the positions padded keys and the CLI are given in.
    positions_action_ = view->addAction(tr("Token &positions on labels"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                                        this, [this](bool on) {
                                            ViewOptions o = options_;
                                            o.token_positions = on;
                                            setViewOptions(o);
                                        });
    positions_action_->setCheckable(true);
    positions_action_->setObjectName(QStringLiteral("token_positions"));
    QAction* focus = view->addAction(tr("Selected &head large"), this, [this](bool on) { heads_tab_->setFocusWanted(on); });
    focus->setObjectName(QStringLiteral("head_focus_action"));
    focus->setCheckable(true);
    focus->setChecked(heads_tab_->focusWanted());
    focus->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));

    presentation_action_ = view->addAction(tr("&Presentation mode"), QKeySequence(Qt::Key_F5), this,
                                           [this](bool on) { setPresentationMode(on); });
    presentation_action_->setObjectName(QStringLiteral("presentation_action"));
    presentation_action_->setCheckable(true);
    controls_->toggleViewAction()->setShortcut(QKeySequence(Qt::Key_F6));

    QMenu* presets = menuBar()->addMenu(tr("P&resets"));
    QString preset_error;
    for (const lessons::Preset& preset : loadPresets(&preset_error)) {
        QAction* a = presets->addAction(QString::fromStdString(preset.name), this, [this, preset]() { applyPreset(preset); });
        a->setToolTip(QString::fromStdString(preset.description));
        a->setStatusTip(QString::fromStdString(preset.description));
    }
    presets->setToolTipsVisible(true);
    QMenu* lessons_menu = menuBar()->addMenu(tr("&Lessons"));
    for (int n = 1; n <= kLessonCount; ++n) {
        const std::optional<lessons::Lesson> lesson = loadLesson(n);
        if (!lesson) continue;
        lessons_menu->addAction(tr("&%1  %2").arg(n).arg(QString::fromStdString(lessons::plainText(lesson->title))), this,
                                [this, n]() { openLesson(n); });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About HeadScope"), this, [this]() { AboutDialog(this).exec(); });
}

}  // namespace headscope::ui
