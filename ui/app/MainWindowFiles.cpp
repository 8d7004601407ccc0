// MainWindow's files: sessions (open, save, recent), export of views and screenshots, GPT-2
// models and their layers, and the waits the command line and tests use.
#include "MainWindow.h"

#include <utility>

#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QInputDialog>
#include <QLocale>
#include <QMessageBox>
#include <QPixmap>
#include <QTabWidget>
#include <QTimer>

#include "CircuitView.h"
#include "ControlsDock.h"
#include "Export.h"
#include "ExportDialog.h"
#include "FusedProjectionsView.h"
#include "ProjectionProductView.h"
#include "HeadGridView.h"
#include "HeadsTab.h"
#include "ModelDock.h"
#include "ModelOverviewView.h"
#include "QueryKeyMapView.h"
#include "RotaryDelta.h"
#include "RecentFiles.h"
#include "ScoreBreakdownView.h"
#include "Session.h"
#include "Setting.h"
#include "StatusPanel.h"
#include "Teaching.h"
#include "TokenLinesView.h"
#include "io/HubCache.h"
#include "io/SessionFile.h"

namespace headscope::ui {

namespace {

const Setting<QString> kLastDir{"files/last_dir", QString()};

QString sessionFilter() {
    return QObject::tr("HeadScope sessions (*.headscope.json);;JSON files (*.json);;All files (*)");
}

}  // namespace

void MainWindow::showFileName(const QString& path) {
    // [*]: the session's modified flag (setWindowModified).
    setWindowTitle(path.isEmpty() ? QStringLiteral("HeadScope[*]")
                                  : QStringLiteral("%1[*] \u2014 HeadScope").arg(QFileInfo(path).fileName()));
}

bool MainWindow::openSession(const QString& path, QString* error) {
    QString message;
    if (session_->load(path, &message)) {
        rememberFile(path);
        return true;
    }
    if (error) *error = message;
    else QMessageBox::warning(this, tr("Cannot open session"), message);  // the message names the file
    return false;
}

bool MainWindow::saveSession(const QString& path, QString* error) {
    QString message;
    if (session_->save(path, &message)) {
        rememberFile(path);
        status_->showNote(tr("Saved %1").arg(path));
        return true;
    }
    if (error) *error = message;
    else QMessageBox::warning(this, tr("Cannot save session"), message);  // the message names the file
    return false;
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

bool MainWindow::save() {
    const QString path = session_->fileName();
    return path.isEmpty() ? saveAs() : saveSession(path);
}

bool MainWindow::saveAs() {
    const QString start = session_->fileName().isEmpty() ? kLastDir.get() : session_->fileName();
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
    if (exportRequest(r, &error)) status_->showNote(tr("Exported %1").arg(r.path));
    else QMessageBox::warning(this, tr("Export failed"), tr("%1\n\n%2").arg(r.path, error));
}

bool MainWindow::exportRequest(const ExportRequest& r, QString* error) {
    const std::shared_ptr<const Analysis> analysis = session_->analysis();
    if (!analysis) return false;
    std::optional<int> delta;  // the Delta the window's RoPE views show
    if (const auto* rotary = session_->findChild<RotaryDelta*>(QStringLiteral("rotary_delta")); rotary && rotary->rotary())
        delta = rotary->delta();
    bool ok = false;
    switch (r.what) {
        case ExportRequest::What::CurrentView:
            ok = saveCurrentTab(r.path, r.format, r.scale, error);
            break;
        case ExportRequest::What::View:
            ok = exportView(r.view, *analysis, r.head, options_, r.path, r.format, r.scale, error,
                            session_->circuits().get(), session_->cellRow(), session_->cellColumn(), delta);
            break;
        case ExportRequest::What::OneHead:
            ok = exportHead(*analysis, r.head, options_, r.path, r.format, r.scale, error);
            break;
        case ExportRequest::What::AllHeads:
            ok = exportHeadGrid(*analysis, options_, r.path, r.format, r.scale, error);
            break;
    }
    return ok;
}

QCustomPlot* MainWindow::currentPlot() const {
    QWidget* tab = tabs_->currentWidget();
    if (tab == heads_tab_) return grid_;  // the grid of every head, as exports draw it
    for (const TabView& view : tab_views_)
        if (tab == view.widget) return view.widget->plot();
    return nullptr;  // a view without a plot (the costs: a text view)
}

bool MainWindow::saveCurrentTab(const QString& path, ImageFormat format, double scale, QString* error) {
    if (QCustomPlot* plot = currentPlot()) return savePlot(plot, path, format, plot->width(), plot->height(), scale, error);
    return saveWidget(tabs_->currentWidget(), path, format, scale, error);
}

bool MainWindow::openModel(const QString& directory, QString* error) {
    if (!error) {
        model_opening_ = true;
        tab_after_model_ = -1;
        session_->openModel(directory);
        return true;
    }
    QString reason;
    bool opened = false;
    QEventLoop loop;
    const auto ok = connect(session_, &Session::sourceChanged, &loop, [&]() { opened = true; loop.quit(); });
    const auto bad = connect(session_, &Session::failed, &loop, [&](const QString& message) { reason = message; loop.quit(); });
    const auto cancelled = connect(session_, &Session::openingCancelled, &loop, [&]() { reason = tr("Opening cancelled"); loop.quit(); });
    session_->openModel(directory);
    loop.exec();
    disconnect(ok);
    disconnect(bad);
    disconnect(cancelled);
    *error = reason;
    return opened;
}

void MainWindow::setText(const QString& text) {
    Config config = session_->config();
    config.text = text.toStdString();
    setConfig(config);
}

void MainWindow::openModelDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a model directory: GPT-2, Llama, Mistral, Qwen2, Qwen3, "
                                                                   "SmolLM3, OLMo 2, Gemma 2 or 3, Phi-3 or GPT-NeoX (config.json, "
                                                                   "safetensors, tokenizer)"),
                                                          kLastDir.get());
    if (dir.isEmpty()) return;
    status_->showNote(tr("Loading %1\u2026").arg(dir));
    session_->openModel(dir);
}

void MainWindow::openCachedModelDialog() {
    const std::vector<io::CachedModel> models = io::cachedModels();
    const QString cache = QString::fromStdString(io::hubCacheDirectory());
    if (models.empty()) {
        QMessageBox::information(this, tr("Hugging Face cache"),
                                 tr("No model is in the Hugging Face cache (looked in %1; HF_HUB_CACHE or HF_HOME move it).").arg(cache));
        return;
    }
    QStringList items;
    for (const io::CachedModel& m : models)
        items << tr("%1  (%2, %3, %4)")
                     .arg(QString::fromStdString(m.repo_id),
                          m.model_type.empty() ? tr("unknown family") : QString::fromStdString(m.model_type),
                          QLocale().formattedDataSize(static_cast<qint64>(m.bytes)),
                          m.dtype.empty() ? tr("dtype not given") : QString::fromStdString(m.dtype));
    bool ok = false;
    const QString chosen = QInputDialog::getItem(this, tr("Open a model from the Hugging Face cache"),
                                                 tr("Models in %1:").arg(cache), items, 0, false, &ok);
    if (!ok) return;
    const io::CachedModel& model = models[std::size_t(items.indexOf(chosen))];
    status_->showNote(tr("Loading %1\u2026").arg(QString::fromStdString(model.repo_id)));
    session_->openModel(QString::fromStdString(model.snapshot));
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
    // The session applies the policy for the new weights (SessionDocument.cpp) and shows its
    // config through configReplaced; the window arranges itself around them.
    const WeightSource& source = session_->source();
    const int asked_tab = std::exchange(tab_after_model_, -1);
    model_opening_ = false;
    model_dock_->setVisible(!source.generated());
    controls_->setInputTakesIds(source.model && !source.model->tokenizer->encodesText());
    controls_->setMaskFixed(source.model && source.model->config.encoder,
                            tr("An encoder attends in both directions: every query sees every key but the padded ones."));
    if (source.model) {
        controls_->setGeometryFixed(true, tr("Fixed by the trained model; text, mask and temperature stay live."));
        if (asked_tab >= 0) tabs_->setCurrentIndex(asked_tab);  // a tab asked for while it opened (--tab)
        else tabs_->setCurrentWidget(modelOverview());
    } else if (source.loaded) {
        controls_->setGeometryFixed(true, tr("Fixed by the loaded layer; the input stays live."));
    } else {
        controls_->setGeometryFixed(false);
    }
    controls_->setPairInput(source.model && source.model->config.encoder);  // after setGeometryFixed, which disables it
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
            if (model_opening_) tab_after_model_ = i;  // and again when the model arrives
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

}  // namespace headscope::ui
