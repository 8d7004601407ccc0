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
#include "ModelOverviewView.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
#include "RankTableView.h"
#include "ViewBinding.h"
#include "ControlsDock.h"
#include "FormWidgets.h"
#include "Export.h"
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

    session_ = new Session(this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("central_tabs"));
    grid_ = new HeadGridView(tabs_);
    grid_->setObjectName(QStringLiteral("head_grid"));
    projections_ = new FusedProjectionsView(tabs_);
    projections_->setObjectName(QStringLiteral("projections_view"));
    product_ = new ProjectionProductView(tabs_);  // lesson 2: (X W_Q) W_K^T = X W_QK
    product_->setObjectName(QStringLiteral("projection_product_view"));
    circuits_ = new CircuitView(tabs_);
    circuits_->setObjectName(QStringLiteral("circuit_view"));
    costs_ = new CostView(tabs_);
    costs_->setObjectName(QStringLiteral("cost_view"));
    breakdown_ = new ScoreBreakdownView(tabs_);
    breakdown_->setObjectName(QStringLiteral("score_breakdown_view"));
    token_lines_ = new TokenLinesView(tabs_);
    token_lines_->setObjectName(QStringLiteral("token_lines_view"));
    qk_map_ = new QueryKeyMapView(tabs_);
    qk_map_->setObjectName(QStringLiteral("qk_map_view"));
    focus_ = new HeadDetailView;
    focus_->setObjectName(QStringLiteral("head_focus"));
    heads_tab_ = new HeadsTab(grid_, focus_, tabs_);
    tabs_->addTab(heads_tab_, tabLabel("heads"));
    tabs_->addTab(projections_, tabLabel("projections"));
    tabs_->addTab(product_, tabLabel("projection_product"));
    tabs_->addTab(circuits_, tabLabel("circuits"));
    tabs_->addTab(costs_, tabLabel("costs"));
    overview_ = new ModelOverviewView(tabs_);
    tabs_->addTab(overview_, tabLabel("model"));
    tabs_->setTabToolTip(tabs_->indexOf(overview_), tr("Every layer and head of an opened model; click one to show it."));
    tabs_->setTabToolTip(tabs_->addTab(breakdown_, tabLabel("score")),
                         tr("How the selected cell's score is made: q, k, q*k, the scale, the softmax row, W_QK."));
    tabs_->setTabToolTip(tabs_->addTab(token_lines_, tabLabel("token_lines")),
                         tr("Lines from each query word to each key word, opacity = weight, one colour per head."));
    tabs_->setTabToolTip(tabs_->addTab(qk_map_, tabLabel("qk_map")),
                         tr("The selected head's queries and keys as points on their first two principal components."));
    auto* training = new TrainingTab(tabs_);  // issue 23: train a small model, watch an induction head form
    tabs_->setTabToolTip(tabs_->addTab(scrollable(training), tabLabel("training")), tr("Train a small transformer on repeated strings."));
    connect(training, &TrainingTab::openModelRequested, this, [this](const QString& dir) {
        if (openModel(dir)) tabs_->setCurrentWidget(overview_);
    });
    tabs_->setTabToolTip(0, tr("The selected head large, every head beside it. Click a head to select it, "
                               "double-click to open it with its numbers."));
    tabs_->setTabToolTip(1, tr("The fused W_Q, W_K, W_V, W_O and the activations X, Q, K, V, with head blocks."));
    tabs_->setTabToolTip(2, tr("Projecting twice is one linear map: (X W_Q) W_K^T = X (W_Q W_K^T), with the largest difference."));
    tabs_->setTabToolTip(3, tr("The selected head's W_QK = W_Q W_K^T and W_OV = W_V W_O with their factors."));
    tabs_->setTabToolTip(4, tr("Parameters and multiply-adds of each variant, with the formulas."));
    setCentralWidget(tabs_);
    buildDocks();
    status_ = new StatusPanel(this);
    statusBar()->addWidget(status_, 1);
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
    bindView(session_, projections_);
    bindView(session_, product_);
    bindView(session_, circuits_);
    bindView(session_, costs_);
    bindView(session_, spectrum_);
    bindView(session_, rank_table_);
    bindView(session_, breakdown_);
    bindView(session_, token_lines_);
    bindView(session_, qk_map_);
    ablation_ = addAblationTab(session_, tabs_, grid_, overview_, rank_table_);  // and the heads' right-click menus
    addRotaryTab(session_, tabs_, spectrum_, circuits_, rank_table_);  // issue 22: RoPE made visible
    connect(grid_, &HeadGridView::cellClicked, session_, [this](int head, int row, int col) {
        session_->setHead(head);
        session_->setCell(row, col);
    });
    connect(session_, &Session::hoverChanged, status_, &StatusPanel::showNote);
    connect(session_, &Session::changed, overview_, [this]() {
        overview_->setTrace(session_->trace());
        overview_->setSelection(session_->source().layer, session_->head());
    });
    connect(session_, &Session::headChanged, overview_, [this](int head) { overview_->setSelection(session_->source().layer, head); });
    connect(overview_, &ModelOverviewView::panelClicked, session_, [this](int layer, int head) {
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

MainWindow::~MainWindow() = default;

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
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setCollapsible(0, false);
    model_dock_ = new ModelDock(session_, this);
    addDockWidget(Qt::RightDockWidgetArea, model_dock_);
    model_dock_->hide();  // shown when a model or layer is opened
    spectrum_dock_ = new QDockWidget(tr("Spectra and ranks of W_QK and W_OV"), this);
    spectrum_dock_->setObjectName(QStringLiteral("spectrum_dock"));
    spectrum_dock_->setWidget(split);
    connect(spectrum_, &SpectrumView::arrangementChanged, this, &MainWindow::updateSpectrumTitle);
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
    projections_->replotNow();
    circuits_->replotNow();
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
    projections_->setOptions(options_);
    product_->setOptions(options_);
    circuits_->setOptions(options_);
    costs_->setOptions(options_);
    breakdown_->setOptions(options_);
    token_lines_->setOptions(options_);
    qk_map_->setOptions(options_);
    if (auto* rotary = findChild<RotaryView*>(QStringLiteral("rotary_view"))) rotary->setOptions(options_);
    overview_->setOptions(options_);
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
