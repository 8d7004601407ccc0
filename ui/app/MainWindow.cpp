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
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "ProjectionProductView.h"
#include "AblationTab.h"
#include "ModelDock.h"
#include "HeadPatternsView.h"
#include "ModelOverviewView.h"
#include "NoModelNote.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
#include "RankTableView.h"
#include "ViewBinding.h"
#include "ControlsDock.h"
#include "FormWidgets.h"
#include "Export.h"
#include "DockTitleBar.h"
#include "HeadDetailDialog.h"
#include "LoadProgressBar.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "HeadsTab.h"
#include "LessonDock.h"
#include "RecentFiles.h"
#include "Resources.h"
#include "RotaryDelta.h"
#include "RotaryTab.h"
#include "RotaryView.h"
#include "Session.h"
#include "Setting.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "Teaching.h"
#include "TrainingTab.h"
#include "TypesetToolTips.h"
#include "ViewRegistry.h"
#include "io/SessionFile.h"

namespace headscope::ui {

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent), window_options_(options) {
    registerMetaTypes();
    initResources();
    setObjectName(QStringLiteral("main_window"));
    setWindowTitle(QStringLiteral("HeadScope[*]"));  // [*]: the session is modified
    setWindowIcon(QIcon(QStringLiteral(":/icons/headscope.svg")));
    base_point_size_ = font().pointSizeF();
    TypesetToolTips::install();  // tool tips in the notation shown typeset (issue 21)

    session_ = new Session(this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("central_tabs"));
    setCentralWidget(tabs_);
    buildDocks();
    buildTabs();
    status_ = new StatusPanel(this);
    statusBar()->addWidget(status_, 1);
    // The Training tab trains a model of its own: the status line then says whose facts it shows (issue 36 item 7).
    connect(tabs_, &QTabWidget::currentChanged, status_, [this]() {
        const bool training = tabs_->currentWidget() && tabs_->currentWidget()->findChild<TrainingTab*>();
        status_->setScope(training ? tr("Other tabs' layer") : QString());
        controls_->setWindowTitle(training ? tr("Controls: other tabs' layer") : tr("Controls"));  // not the trained model's
    });
    auto* loading = new LoadProgressBar(this);  // while a model opens
    statusBar()->addPermanentWidget(loading);
    connect(session_, &Session::failed, loading, &LoadProgressBar::finish);
    connect(session_, &Session::openingCancelled, loading, &LoadProgressBar::finish);
    connect(session_, &Session::openingCancelled, this, [this]() { status_->showNote(tr("Opening cancelled")); });
    statusBar()->setSizeGripEnabled(true);
    buildMenus();

    bindView(session_, grid_);
    bindView(session_, focus_);
    connect(focus_, &HeadDetailView::cellHovered, session_, &Session::setHover);
    bindView(session_, spectrum_);
    bindView(session_, rank_table_);
    shareRotaryDelta(session_, qobject_cast<RotaryView*>(tabView("rope")), spectrum_, circuitView(), rank_table_);  // issue 22
    connect(grid_, &HeadGridView::cellClicked, session_, [this](int head, int row, int col) {
        session_->setHead(head);
        session_->setCell(row, col);
    });
    connect(session_, &Session::hoverChanged, status_, &StatusPanel::showNote);
    connect(session_, &Session::noted, status_, &StatusPanel::showNote);
    ModelOverviewView* overview = modelOverview();
    connect(session_, &Session::changed, overview, [this, overview]() {
        overview->setTrace(session_->trace());
        overview->setSelection(session_->source().layer, session_->head());
    });
    connect(session_, &Session::headChanged, overview, [this, overview](int head) {
        overview->setSelection(session_->source().layer, head);
    });
    connect(overview, &ModelOverviewView::panelClicked, session_, [this](int layer, int head) {
        session_->setLayer(layer);
        session_->setHead(head);
    });
    auto* patterns = qobject_cast<HeadPatternsView*>(tabView("head_patterns"));  // issue 34: what each head looks at
    connect(session_, &Session::changed, patterns, [this, patterns]() {
        patterns->setTrace(session_->trace());
        patterns->setSelection(session_->source().layer, session_->head());
    });
    connect(session_, &Session::headChanged, patterns, [this, patterns](int head) {
        patterns->setSelection(session_->source().layer, head);
    });
    // Between a model's opening and its first trace (or when its text is refused) the model views
    // say a model is open rather than ask for one.
    connect(session_, &Session::sourceChanged, this, [this, overview, patterns]() {
        const bool open = session_->source().model != nullptr;
        overview->noModelNote()->setModelOpen(open);
        patterns->setModelOpen(open);
    });
    connect(patterns, &HeadPatternsView::cellActivated, session_, [this](int layer, int head) {
        session_->setLayer(layer);
        session_->setHead(head);
    });
    connect(session_, &Session::sourceChanged, this, &MainWindow::onSourceChanged);
    connect(session_, &Session::configReplaced, this, &MainWindow::showConfig);
    connect(session_, &Session::viewOptionsChanged, this, &MainWindow::applyViewOptions);
    connect(session_, &Session::fileNameChanged, this, &MainWindow::showFileName);
    connect(session_, &Session::modifiedChanged, this, &QWidget::setWindowModified);
    connect(session_, &Session::changed, this, &MainWindow::showAnalysis);
    connect(session_, &Session::equivalenceReady, this, [this](std::shared_ptr<const Analysis> a) {
        status_->showEquivalence(*a);
    });
    connect(session_, &Session::invalid, controls_, &ControlsDock::showProblems);
    connect(session_, &Session::failed, this, [this](const QString& message) {
        model_opening_ = false;  // a tab asked for meanwhile stays as it is
        tab_after_model_ = -1;
        controls_->showProblems({message});
        status_->showFailure(message);
    });
    connect(controls_, &ControlsDock::configEdited, this, [this](const Config& config) { onConfigEdited(config); });
    connect(grid_, &HeadGridView::headActivated, this, &MainWindow::showHead);
    connect(grid_, &HeadGridView::cellHovered, session_, &Session::setHover);

    const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
    resize(std::min(1400, available.width()), std::min(900, available.height()));
    Config config;
    if (window_options_.use_settings) config = restoreSettings();
    setViewOptions(options_);
    setConfig(config);
    session_->startNewHistory();  // where the program starts is not a step to undo
    initial_state_ = saveState();  // View > Normal size goes back to it
}

MainWindow::~MainWindow() {
    // The docks hide as they are deleted: nothing may rearrange a window being taken apart.
    if (lesson_dock_) disconnect(lesson_dock_, nullptr, this, nullptr);
}

void MainWindow::buildTabs() {
    // One tab per registry entry placed in a tab (entries sharing a label share it), in the
    // registry's order: its factory builds the view, bound to the session by its base class; the
    // window composes only the tabs made of several parts over the document (composedTab).
    for (const ViewEntry& entry : viewRegistry()) {
        if (entry.place != ViewPlace::Tab) continue;
        const QString label = QString::fromUtf8(entry.tab_label);
        bool shown = false;
        for (int i = 0; i < tabs_->count(); ++i) shown = shown || tabs_->tabText(i) == label;
        if (shown) continue;
        QWidget* page = nullptr;
        if (entry.make_view) {
            const TabView view{entry.id, entry.make_view(tabs_)};
            view.widget->setObjectName(QString::fromUtf8(entry.id) + QStringLiteral("_view"));
            bindView(session_, view.widget);
            tab_views_.push_back(view);
            page = view.widget;
        } else {
            page = composedTab(entry.id);
        }
        if (!page) continue;  // an entry without a factory that the window does not compose: test_view_registry fails
        const int index = tabs_->indexOf(page) >= 0 ? tabs_->indexOf(page) : tabs_->addTab(page, label);
        if (entry.tab_tip) tabs_->setTabToolTip(index, tabTip(entry));
    }
}

QWidget* MainWindow::composedTab(const std::string& id) {
    if (id == "heads") {  // the selected head large beside the grid of every head
        grid_ = new HeadGridView(tabs_);
        grid_->setObjectName(QStringLiteral("head_grid"));
        focus_ = new HeadDetailView;
        focus_->setObjectName(QStringLiteral("head_focus"));
        return heads_tab_ = new HeadsTab(grid_, focus_, tabs_);
    }
    if (id == "training") {  // issue 23: train a small model, watch an induction head form
        auto* training = new TrainingTab(tabs_);
        connect(training, &TrainingTab::openModelRequested, this, [this](const QString& dir) {
            if (openModel(dir)) tabs_->setCurrentWidget(modelOverview());
        });
        return scrollable(training);
    }
    if (id == "ablation") {  // adds its tab, and the heads' right-click menus
        ablation_ = addAblationTab(session_, tabs_, grid_, modelOverview(), rank_table_);
        return tabs_->widget(tabs_->count() - 1);
    }
    return nullptr;
}

QWidget* MainWindow::tabView(const char* id) const {
    for (const TabView& view : tab_views_)
        if (view.id == std::string_view(id)) return view.widget;
    return nullptr;
}

FusedProjectionsView* MainWindow::projectionsView() const { return qobject_cast<FusedProjectionsView*>(tabView("projections")); }
CircuitView* MainWindow::circuitView() const { return qobject_cast<CircuitView*>(tabView("circuits")); }
ProjectionProductView* MainWindow::projectionProductView() const {
    return qobject_cast<ProjectionProductView*>(tabView("projection_product"));
}
CostView* MainWindow::costView() const { return qobject_cast<CostView*>(tabView("costs")); }
ScoreBreakdownView* MainWindow::scoreBreakdownView() const { return qobject_cast<ScoreBreakdownView*>(tabView("score")); }
TokenLinesView* MainWindow::tokenLinesView() const { return qobject_cast<TokenLinesView*>(tabView("token_lines")); }
QueryKeyMapView* MainWindow::queryKeyMapView() const { return qobject_cast<QueryKeyMapView*>(tabView("qk_map")); }
ModelOverviewView* MainWindow::modelOverview() const { return qobject_cast<ModelOverviewView*>(tabView("model")); }

void MainWindow::buildDocks() {
    controls_ = new ControlsDock(this);
    addDockWidget(Qt::LeftDockWidgetArea, controls_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    spectrum_split_ = split;
    spectrum_ = new SpectrumView(split);
    spectrum_->setObjectName(QStringLiteral("spectrum_view"));
    rank_table_ = new RankTableView(split);
    split->addWidget(spectrum_);
    split->addWidget(rank_table_);
    connect(rank_table_, &RankTableView::rowCountChanged, this, &MainWindow::fitRankTable, Qt::QueuedConnection);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setCollapsible(0, false);
    model_dock_ = new ModelDock(session_, this);
    addDockWidget(Qt::RightDockWidgetArea, model_dock_);
    model_dock_->hide();  // shown when a model or layer is opened
    spectrum_dock_ = new QDockWidget(tr("Spectra and ranks of W_QK and W_OV"), this);
    spectrum_dock_->setObjectName(QStringLiteral("spectrum_dock"));
    spectrum_dock_->setTitleBarWidget(new DockTitleBar(spectrum_dock_));  // its title typeset (issue 21)
    // Its View menu entry: a menu cannot typeset, so the short name without notation, whatever the title.
    const auto short_entry = [this]() { spectrum_dock_->toggleViewAction()->setText(tr("Spectra and ranks")); };
    connect(spectrum_dock_, &QDockWidget::windowTitleChanged, this, short_entry);
    short_entry();
    spectrum_dock_->setWidget(split);
    connect(spectrum_, &SpectrumView::arrangementChanged, this, &MainWindow::updateSpectrumTitle);
    connect(spectrum_dock_, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        if (shown) QMetaObject::invokeMethod(this, &MainWindow::fitRankTable, Qt::QueuedConnection);  // once laid out
    });
    connect(controls_, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        if (shown) QMetaObject::invokeMethod(this, &MainWindow::fitControls, Qt::QueuedConnection);  // once laid out
    });
    // Below the grid: the two spectra side by side get a wide, log-friendly shape, and the
    // heatmaps keep the full height they need for readable token labels.
    addDockWidget(Qt::BottomDockWidgetArea, spectrum_dock_);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    resizeDocks({controls_}, {360}, Qt::Horizontal);
    resizeDocks({spectrum_dock_}, {250}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (window_options_.use_settings) saveSettings();
    if (detail_) detail_->close();
    event->accept();
}

void MainWindow::setConfig(const Config& config, const QString& step) {
    controls_->setConfig(config);
    onConfigEdited(config, step);
}

void MainWindow::onConfigEdited(const Config& config, const QString& step) {
    // A preset's name leaves the status line with the first change after it (issue 21).
    if (!step.startsWith(QStringLiteral("preset: "))) status_->clearNoteStartingWith(tr("Preset: "));
    session_->editConfig(config, step);
    controls_->showProblems(session_->problems());
}

void MainWindow::showConfig(const Config& config) {
    controls_->setConfig(config);
    controls_->showProblems(session_->problems());
}

QUndoStack* MainWindow::undoStack() const { return session_->undoStack(); }

QString MainWindow::sessionPath() const { return session_->fileName(); }

void MainWindow::showAnalysis(std::shared_ptr<const Analysis> analysis) {
    // The views drew themselves (bindView); this counts and times the update.
    ++updates_shown_;
    const double ms = session_->millisecondsSinceRequest();
    status_->showAnalysis(*analysis, ms);
    emit analysisShown(ms);
}

void MainWindow::redrawNow() {
    grid_->replotNow();
    spectrum_->replotNow();
    for (const TabView& view : tab_views_) view.widget->replotNow();
}

void MainWindow::setViewOptions(const ViewOptions& options) { session_->setViewOptions(options); }

void MainWindow::applyViewOptions(const ViewOptions& options) {
    options_ = options;
    controls_->logitsAction()->setChecked(options.show_logits);
    controls_->sharedScaleAction()->setChecked(options.shared_scale);
    if (positions_action_) positions_action_->setChecked(options.token_positions);
    grid_->setOptions(options_);
    spectrum_->setOptions(options_);
    rank_table_->setOptions(options_);
    ablation_->setOptions(options_);
    if (detail_) detail_->setOptions(options_);
    focus_->setOptions(options_);
    applyFontScale();
}

void MainWindow::zoom(double factor) {
    ViewOptions o = options_;
    o.font_scale = factor == 0 ? 1.0 : std::clamp(o.font_scale * factor, kMinFontScale, kMaxFontScale);
    setViewOptions(o);
    if (factor == 0 && !initial_state_.isEmpty()) {
        restoreState(initial_state_);
        resizeDocks({controls_}, {std::min(360, room_ == Room::Wide ? width() * 2 / 5 : width() * 3 / 10)}, Qt::Horizontal);
        return;
    }
    // Room for the labels, but never more than 40% of the window (30% on a small screen).
    const int share = room_ == Room::Wide ? width() * 2 / 5 : width() * 3 / 10;
    resizeDocks({controls_}, {std::min(int(360 * std::max(1.0, o.font_scale)), share)}, Qt::Horizontal);
}

void MainWindow::applyFontScale() {
    // The views scale their own labels (ViewOptions::font_scale); the dock and status line follow.
    // The status line grows less so that its facts still fit on one line each.
    QFont scaled = font();
    scaled.setPointSizeF(base_point_size_ * options_.font_scale);
    controls_->setFont(scaled);
    if (lesson_dock_) lesson_dock_->setFont(scaled);  // read from the back row too
    scaled.setPointSizeF(base_point_size_ * std::min(options_.font_scale, 1.25));
    status_->setFont(scaled);
}

void MainWindow::showHead(int head) {
    session_->setHead(head);
    if (!detail_) {
        detail_ = new HeadDetailDialog(this);
        detail_->setOptions(options_);
        detail_->setRotaryDelta(session_->findChild<RotaryDelta*>(QStringLiteral("rotary_delta")));  // the window's Δ
        bindView(session_, detail_);
    }
    detail_->show();
    detail_->raise();
    detail_->activateWindow();
}

}  // namespace headscope::ui
