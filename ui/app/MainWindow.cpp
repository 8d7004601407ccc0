#include "MainWindow.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QIcon>
#include <QImageWriter>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "AboutDialog.h"
#include "CircuitView.h"
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "ModelDock.h"
#include "ModelOverviewView.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
#include "RankTableView.h"
#include "ViewBinding.h"
#include "ControlsDock.h"
#include "Export.h"
#include "ExportDialog.h"
#include "HeadDetailDialog.h"
#include "HeadGridView.h"
#include "LessonDock.h"
#include "RecentFiles.h"
#include "Resources.h"
#include "Session.h"
#include "Setting.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "Teaching.h"
#include "io/SessionFile.h"

namespace headscope::ui {

namespace {

const Setting<QByteArray> kGeometry{"main_window/geometry", QByteArray()};
const Setting<QByteArray> kState{"main_window/state", QByteArray()};
const Setting<QString> kLastConfig{"session/last_config", QString()};  // JSON, as in session files
const Setting<QString> kLastPath{"session/last_path", QString()};
const Setting<QString> kLastDir{"files/last_dir", QString()};
const Setting<bool> kShowLogits{"view/show_logits", false};
const Setting<bool> kSharedScale{"view/shared_scale", true};
const Setting<double> kFontScale{"view/font_scale", 1.0};

constexpr double kZoomStep = 1.25, kMinFontScale = 0.5, kMaxFontScale = 3.0;
QString sessionFilter() {
    return QObject::tr("HeadScope sessions (*.headscope.json);;JSON files (*.json);;All files (*)");
}

}  // namespace

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent), window_options_(options) {
    registerMetaTypes();
    initResources();
    setObjectName(QStringLiteral("main_window"));
    setWindowTitle(QStringLiteral("HeadScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/headscope.svg")));
    base_point_size_ = font().pointSizeF();

    session_ = new Session(this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("central_tabs"));
    grid_ = new HeadGridView(tabs_);
    grid_->setObjectName(QStringLiteral("head_grid"));
    projections_ = new FusedProjectionsView(tabs_);
    projections_->setObjectName(QStringLiteral("projections_view"));
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
    tabs_->addTab(grid_, tr("&Heads"));
    tabs_->addTab(projections_, tr("&Projections"));
    tabs_->addTab(circuits_, tr("C&ircuits"));
    tabs_->addTab(costs_, tr("C&osts"));
    overview_ = new ModelOverviewView(tabs_);
    tabs_->addTab(overview_, tr("&Model"));
    tabs_->setTabToolTip(tabs_->indexOf(overview_), tr("Every layer and head of an opened GPT-2 model; click one to show it."));
    tabs_->setTabToolTip(tabs_->addTab(breakdown_, tr("&Score")),
                         tr("How the selected cell's score is made: q, k, q*k, the scale, the softmax row, W_QK."));
    tabs_->setTabToolTip(tabs_->addTab(token_lines_, tr("&Token lines")),
                         tr("Lines from each query word to each key word, opacity = weight, one colour per head."));
    tabs_->setTabToolTip(tabs_->addTab(qk_map_, tr("&Q-K map")),
                         tr("The selected head's queries and keys as points on their first two principal components."));
    tabs_->setTabToolTip(0, tr("Every head's attention. Click a head to select it, double-click to open it large."));
    tabs_->setTabToolTip(1, tr("The fused W_Q, W_K, W_V, W_O and the activations X, Q, K, V, with head blocks."));
    tabs_->setTabToolTip(2, tr("The selected head's W_QK = W_Q W_K^T and W_OV = W_V W_O with their factors."));
    tabs_->setTabToolTip(3, tr("Parameters and multiply-adds of each variant, with the formulas."));
    setCentralWidget(tabs_);
    buildDocks();
    status_ = new StatusPanel(this);
    statusBar()->addWidget(status_, 1);
    statusBar()->setSizeGripEnabled(true);
    buildMenus();

    bindView(session_, grid_);
    bindView(session_, projections_);
    bindView(session_, circuits_);
    bindView(session_, costs_);
    bindView(session_, spectrum_);
    bindView(session_, rank_table_);
    bindView(session_, breakdown_);
    bindView(session_, token_lines_);
    bindView(session_, qk_map_);
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
    connect(session_, &Session::changed, this, &MainWindow::showAnalysis);
    connect(session_, &Session::equivalenceReady, this, [this](std::shared_ptr<const Analysis> a) {
        status_->showEquivalence(*a);
    });
    connect(session_, &Session::invalid, controls_, &ControlsDock::showProblems);
    connect(session_, &Session::failed, this, [this](const QString& message) {
        controls_->showProblems({message});
        status_->showFailure(message);
    });
    connect(controls_, &ControlsDock::configEdited, this, &MainWindow::onConfigEdited);
    connect(grid_, &HeadGridView::headActivated, this, &MainWindow::showHead);
    connect(grid_, &HeadGridView::cellHovered, session_, &Session::setHover);

    const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
    resize(std::min(1400, available.width()), std::min(900, available.height()));
    Config config;
    if (window_options_.use_settings) restoreSettings();
    if (window_options_.use_settings && !kLastConfig.get().isEmpty()) {
        try {
            config = io::configFromJson(kLastConfig.get().toStdString());
            setSessionPath(kLastPath.get());
        } catch (const std::exception&) {
            config = Config{};  // a damaged setting must not stop the program
        }
    }
    setViewOptions(options_);
    setConfig(config);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks() {
    controls_ = new ControlsDock(this);
    addDockWidget(Qt::LeftDockWidgetArea, controls_);
    auto* split = new QSplitter(Qt::Horizontal, this);
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
    // When the dock is too small for both spectra (a projector, large fonts), its title says
    // where W_OV went.
    connect(spectrum_, &SpectrumView::arrangementChanged, this, [this]() {
        const QString hidden = spectrum_->hiddenPanelNote();
        spectrum_dock_->setWindowTitle(hidden.isEmpty() ? tr("Spectra and ranks of W_QK and W_OV")
                                                        : tr("Spectrum of W_QK and ranks · %1").arg(hidden));
    });
    // Below the grid: the two spectra side by side get a wide, log-friendly shape, and the
    // heatmaps keep the full height they need for readable token labels.
    addDockWidget(Qt::BottomDockWidgetArea, spectrum_dock_);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    resizeDocks({controls_}, {360}, Qt::Horizontal);
    resizeDocks({spectrum_dock_}, {250}, Qt::Vertical);
}

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
    file->addAction(tr("Open &model (GPT-2 directory)\u2026"), QKeySequence(Qt::CTRL | Qt::Key_M), this,
                    &MainWindow::openModelDialog);
    file->addAction(tr("Open &layer (PyTorch attention, .safetensors)\u2026"), this, &MainWindow::openLayerDialog);
    file->addAction(tr("Back to &generated weights"), session_, &Session::useGeneratedWeights);
    file->addSeparator();
    file->addAction(tr("&Export\u2026"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::exportDialog);
    file->addAction(tr("&Copy view"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, &MainWindow::copyView);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    full_screen_ = view->addAction(tr("&Full screen"), QKeySequence(Qt::Key_F11), this, [this](bool on) {
        on ? showFullScreen() : showNormal();
    });
    full_screen_->setCheckable(true);
    QAction* larger = view->addAction(tr("&Larger"), this, [this]() { zoom(kZoomStep); });
    larger->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(QKeySequence::ZoomIn)});
    QAction* smaller = view->addAction(tr("&Smaller"), this, [this]() { zoom(1 / kZoomStep); });
    smaller->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Minus), QKeySequence(QKeySequence::ZoomOut)});
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

void MainWindow::restoreSettings() {
    if (!restoreGeometry(kGeometry.get())) resize(1400, 900);
    restoreState(kState.get());
    options_.show_logits = kShowLogits.get();
    options_.shared_scale = kSharedScale.get();
    options_.font_scale = std::clamp(kFontScale.get(), kMinFontScale, kMaxFontScale);
}

void MainWindow::saveSettings() const {
    kGeometry.set(saveGeometry());
    kState.set(saveState());
    kLastConfig.set(QString::fromStdString(io::configToJson(session_->config())));
    kLastPath.set(session_path_);
    kShowLogits.set(options_.show_logits);
    kSharedScale.set(options_.shared_scale);
    kFontScale.set(options_.font_scale);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (window_options_.use_settings) saveSettings();
    if (detail_) detail_->close();
    event->accept();
}

void MainWindow::setConfig(const Config& config) {
    controls_->setConfig(config);
    onConfigEdited(config);
}

void MainWindow::onConfigEdited(const Config& config) {
    session_->setConfig(config);
    controls_->showProblems(session_->problems());
}

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

void MainWindow::setViewOptions(const ViewOptions& options) {
    options_ = options;
    controls_->logitsAction()->setChecked(options.show_logits);
    controls_->sharedScaleAction()->setChecked(options.shared_scale);
    if (positions_action_) positions_action_->setChecked(options.token_positions);
    grid_->setOptions(options_);
    spectrum_->setOptions(options_);
    rank_table_->setOptions(options_);
    projections_->setOptions(options_);
    circuits_->setOptions(options_);
    costs_->setOptions(options_);
    breakdown_->setOptions(options_);
    token_lines_->setOptions(options_);
    qk_map_->setOptions(options_);
    overview_->setOptions(options_);
    if (detail_) detail_->setOptions(options_);
    applyFontScale();
}

void MainWindow::zoom(double factor) {
    ViewOptions o = options_;
    o.font_scale = factor == 0 ? 1.0 : std::clamp(o.font_scale * factor, kMinFontScale, kMaxFontScale);
    setViewOptions(o);
    // Room for the labels, but never more than 40% of the window: the views need it more.
    resizeDocks({controls_}, {std::min(int(360 * std::max(1.0, o.font_scale)), width() * 2 / 5)}, Qt::Horizontal);
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
        bindView(session_, detail_);
    }
    detail_->show();
    detail_->raise();
    detail_->activateWindow();
}

void MainWindow::setSessionPath(const QString& path) {
    session_path_ = path;
    setWindowTitle(path.isEmpty() ? QStringLiteral("HeadScope")
                                  : QStringLiteral("%1 \u2014 HeadScope").arg(QFileInfo(path).fileName()));
}

bool MainWindow::openSession(const QString& path, QString* error) {
    try {
        const io::SessionData data = io::loadSessionData(path.toStdString());  // view settings too, when saved
        setViewOptions(applyViewSettings(options_, data.view));
        setConfig(data.config);
        setSessionPath(path);
        rememberFile(path);
        return true;
    } catch (const std::exception& e) {
        const QString message = QString::fromStdString(e.what());
        if (error) *error = message;
        else QMessageBox::warning(this, tr("Cannot open session"), message);  // the message names the file
        return false;
    }
}

bool MainWindow::saveSession(const QString& path, QString* error) {
    try {
        io::saveSession(path.toStdString(), io::SessionData{session_->config(), viewSettings(options_)});
        setSessionPath(path);
        rememberFile(path);
        status_->showNote(tr("Saved %1").arg(path));
        return true;
    } catch (const std::exception& e) {
        const QString message = QString::fromStdString(e.what());
        if (error) *error = message;
        else QMessageBox::warning(this, tr("Cannot save session"), message);  // the message names the file
        return false;
    }
}

void MainWindow::rememberFile(const QString& path) {
    if (!window_options_.use_settings) return;  // screenshots and tests leave the user's settings alone
    recent_->add(path);
    kLastDir.set(QFileInfo(path).absolutePath());
}

void MainWindow::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), kLastDir.get(), sessionFilter());
    if (!path.isEmpty()) openSession(path);
}

bool MainWindow::save() { return session_path_.isEmpty() ? saveAs() : saveSession(session_path_); }

bool MainWindow::saveAs() {
    const QString start = session_path_.isEmpty() ? kLastDir.get() : session_path_;
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"), start, sessionFilter());
    if (path.isEmpty()) return false;
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) path += QStringLiteral(".headscope.json");
    return saveSession(path);
}

void MainWindow::exportDialog() {
    const std::shared_ptr<const Analysis> analysis = session_->analysis();
    if (!analysis) return;
    ExportDialog dialog(analysis->config.heads, session_->head(), this);
    if (dialog.exec() != QDialog::Accepted) return;
    const ExportRequest r = dialog.request();
    QString error;
    bool ok = false;
    switch (r.what) {
        case ExportRequest::What::CurrentView:
            ok = saveCurrentTab(r.path, r.format, r.scale, &error);
            break;
        case ExportRequest::What::View:
            ok = exportView(r.view, *analysis, r.head, options_, r.path, r.format, r.scale, &error,
                            session_->circuits().get(), session_->cellRow(), session_->cellColumn());
            break;
        case ExportRequest::What::OneHead:
            ok = exportHead(*analysis, r.head, options_, r.path, r.format, r.scale, &error);
            break;
        case ExportRequest::What::AllHeads:
            ok = exportHeadGrid(*analysis, options_, r.path, r.format, r.scale, &error);
            break;
    }
    if (ok) status_->showNote(tr("Exported %1").arg(r.path));
    else QMessageBox::warning(this, tr("Export failed"), tr("%1\n\n%2").arg(r.path, error));
}

QCustomPlot* MainWindow::currentPlot() const {
    QWidget* tab = tabs_->currentWidget();
    if (tab == grid_) return grid_;
    if (tab == projections_) return projections_->plot();
    if (tab == circuits_) return circuits_->plot();
    if (tab == breakdown_) return breakdown_->plot();
    if (tab == token_lines_) return token_lines_->plot();
    if (tab == qk_map_) return qk_map_->plot();
    return nullptr;  // the costs: a text view
}

bool MainWindow::saveCurrentTab(const QString& path, ImageFormat format, double scale, QString* error) {
    if (QCustomPlot* plot = currentPlot()) return savePlot(plot, path, format, plot->width(), plot->height(), scale, error);
    return saveWidget(tabs_->currentWidget(), path, format, scale, error);
}

bool MainWindow::openModel(const QString& directory, QString* error) {
    if (!error) {
        session_->openModel(directory);
        return true;
    }
    QString reason;
    bool opened = false;
    QEventLoop loop;
    const auto ok = connect(session_, &Session::sourceChanged, &loop, [&]() { opened = true; loop.quit(); });
    const auto bad = connect(session_, &Session::failed, &loop, [&](const QString& message) { reason = message; loop.quit(); });
    session_->openModel(directory);
    loop.exec();
    disconnect(ok);
    disconnect(bad);
    *error = reason;
    return opened;
}

void MainWindow::setText(const QString& text) {
    Config config = session_->config();
    config.text = text.toStdString();
    setConfig(config);
}

void MainWindow::openModelDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a GPT-2 model directory (config.json, "
                                                                   "model.safetensors, vocab.json, merges.txt)"),
                                                          kLastDir.get());
    if (dir.isEmpty()) return;
    status_->showNote(tr("Loading %1\u2026").arg(dir));
    session_->openModel(dir);
}

void MainWindow::openLayerDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open an nn.MultiheadAttention state dict"),
                                                      kLastDir.get(), tr("safetensors (*.safetensors);;All files (*)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int heads = QInputDialog::getInt(this, tr("Heads"), tr("Number of heads of this layer (num_heads):"), 8, 1,
                                           Limits::kMaxHeads, 1, &ok);
    if (!ok) return;
    const QString prefix = QInputDialog::getText(this, tr("Prefix"),
                                                 tr("Prefix of the tensor names (e.g. layers.0.self_attn.), or empty:"),
                                                 QLineEdit::Normal, QString(), &ok);
    if (!ok) return;
    session_->openLayer(path, heads, prefix.trimmed());
}

void MainWindow::onSourceChanged() {
    const WeightSource& source = session_->source();
    model_dock_->setVisible(!source.generated());
    if (source.model) {
        controls_->setGeometryFixed(true, tr("Fixed by the trained model; text, mask and temperature stay live."));
        // A text the vocabulary cannot encode becomes one it can: its first tokens, twice.
        Config config = session_->config();
        try {
            source.model->tokenizer.encode(config.text);
        } catch (const std::exception&) {
            std::vector<int> ids;
            for (int i = 0; i < std::min(6, source.model->config.vocab_size); ++i) ids.push_back(i);
            ids.insert(ids.end(), ids.begin(), ids.end());
            config.text = source.model->tokenizer.decode(ids);
        }
        config.source_text.clear();
        config.mask = MaskKind::Causal;
        config.padded_keys.clear();
        setConfig(constrained(config, source));
        tabs_->setCurrentWidget(overview_);
    } else if (source.loaded) {
        controls_->setGeometryFixed(true, tr("Fixed by the loaded layer; the input stays live."));
        setConfig(constrained(session_->config(), source));
    } else {
        controls_->setGeometryFixed(false);
        setConfig(session_->config());
    }
}

void MainWindow::copyView() {
    if (QCustomPlot* plot = currentPlot()) {
        copyToClipboard(plot);
    } else if (QClipboard* clipboard = QApplication::clipboard()) {
        clipboard->setPixmap(tabs_->currentWidget()->grab());
    }
    status_->showNote(tr("Copied the %1 tab to the clipboard").arg(tabs_->tabText(tabs_->currentIndex()).remove('&')));
}

bool MainWindow::waitForCompleteUpdate(int timeout_ms, QString* error) {
    QString reason;
    const auto done = [&]() {
        if (!session_->problems().isEmpty()) reason = session_->problems().join(QLatin1Char(' '));
        return !reason.isEmpty() || (updates_shown_ > 0 && !session_->busy());
    };
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    const auto check = [&]() { if (done()) loop.quit(); };
    connect(session_, &Session::busyChanged, &loop, check);
    connect(session_, &Session::invalid, &loop, check);
    connect(session_, &Session::failed, &loop, [&](const QString& message) { reason = message; loop.quit(); });
    connect(this, &MainWindow::analysisShown, &loop, check);
    if (!done()) {
        timer.start(timeout_ms);
        loop.exec();
    }
    if (reason.isEmpty() && !done()) reason = tr("no result after %1 ms").arg(timeout_ms);
    if (error) *error = reason;
    return reason.isEmpty();
}

bool MainWindow::showTab(const QString& name, QString* error) {
    QStringList names;
    for (int i = 0; i < tabs_->count(); ++i) {
        const QString title = tabs_->tabText(i).remove(QLatin1Char('&'));
        if (title.compare(name.trimmed(), Qt::CaseInsensitive) == 0) {
            tabs_->setCurrentIndex(i);
            return true;
        }
        names << title;
    }
    if (error) *error = tr("no tab called \"%1\" (there are: %2)").arg(name, names.join(QStringLiteral(", ")));
    return false;
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);  // pending layouts first
    redrawNow();
    const QPixmap pixmap = grab();
    const QByteArray suffix = QFileInfo(path).suffix().toLower().toLatin1();
    const char* format = QImageWriter::supportedImageFormats().contains(suffix) ? nullptr : "PNG";
    if (!pixmap.isNull() && pixmap.save(path, format)) return true;
    if (error) *error = tr("cannot write the screenshot to %1").arg(path);
    return false;
}

// --- teaching: presets, lessons, presentation mode ------------------------------------------

void MainWindow::applyPreset(const lessons::Preset& preset) {
    ViewOptions o = options_;
    o.cell_numbers = false;  // a preset without numbers in the cells turns them off
    setViewOptions(applyViewSettings(o, preset.session.view));
    setConfig(preset.session.config);
    status_->showNote(tr("Preset: %1").arg(QString::fromStdString(preset.name)));
}

void MainWindow::applyLessonStep(const lessons::LessonStep& step) {
    ViewOptions o = options_;
    o.cell_numbers = false;
    o.show_logits = step.show == "logits";
    o = applyViewSettings(o, step.session.view);
    if (presentation_) o.font_scale = std::max(o.font_scale, options_.font_scale);
    setViewOptions(o);
    setConfig(step.session.config);
    session_->setHead(step.head);
    showView(step.show);
}

bool MainWindow::openLesson(int number, QString* error) {
    QString why;
    const std::optional<lessons::Lesson> lesson = loadLesson(number, &why);
    if (!lesson) {
        if (error) *error = why;
        else QMessageBox::warning(this, tr("Cannot open the lesson"), why);
        return false;
    }
    if (!lesson_dock_) {
        lesson_dock_ = new LessonDock(this);
        addDockWidget(Qt::RightDockWidgetArea, lesson_dock_);
        resizeDocks({lesson_dock_}, {320}, Qt::Horizontal);
        applyFontScale();
    }
    lesson_dock_->show();
    lesson_dock_->raise();
    lesson_dock_->setLesson(*lesson);
    return true;
}

void MainWindow::showView(const std::string& show) {
    QWidget* tab = grid_;
    if (show == "projections") tab = projections_;
    else if (show == "circuits" || show == "circuit_ov") tab = circuits_;
    else if (show == "costs") tab = costs_;
    tabs_->setCurrentWidget(tab);
    if (show == "spectra" || show == "spectrum_ov" || show == "ranks") {
        spectrum_dock_->show();
        spectrum_dock_->raise();
    }
}

void MainWindow::setPresentationMode(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    presentation_action_->setChecked(on);
    if (on) {
        options_before_presentation_ = options_;
        state_before_presentation_ = saveState();
        ViewOptions o = options_;
        o.font_scale = std::max(o.font_scale, 1.75);
        setViewOptions(o);
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
        spectrum_dock_->hide();  // the heads get the height; lesson steps on spectra show it again
        grid_->setHoverHighlight(true);
        showFullScreen();
        status_->showNote(tr("Presentation mode: F5 to leave, F6 for the controls, Page Up / Page Down for lesson steps"));
    } else {
        setPalette(QPalette());
        grid_->setHoverHighlight(false);
        ViewOptions o = options_;
        o.font_scale = options_before_presentation_.font_scale;
        setViewOptions(o);
        restoreState(state_before_presentation_);
        full_screen_->isChecked() ? showFullScreen() : showNormal();
    }
}

}  // namespace headscope::ui
