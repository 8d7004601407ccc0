#include "Session.h"

#include "LoadProgressRelay.h"
#include "Setting.h"
#include "io/Checkpoint.h"
#include "io/MhaLoader.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <QUndoStack>

namespace headscope::ui {

namespace {
// Posted at Qt::LowEventPriority, like a window's UpdateRequest; the last hop runs the tasks.
class AfterFrameEvent : public QEvent {
public:
    explicit AfterFrameEvent(int hops) : QEvent(type()), hops(hops) {}
    static QEvent::Type type() {
        static const auto registered = static_cast<QEvent::Type>(QEvent::registerEventType());
        return registered;
    }
    const int hops;
};
}  // namespace

Session::Session(QObject* parent) : QObject(parent) {
    registerMetaTypes();
    clock_.start();
    undo_ = new QUndoStack(this);
    connect(undo_, &QUndoStack::cleanChanged, this, &Session::updateModified);
    analysis_thread_.setObjectName(QStringLiteral("headscope-analysis"));
    analysis_context_ = new QObject;
    analysis_context_->moveToThread(&analysis_thread_);
    analysis_thread_.start();
    equivalence_.setFinished([this]() { updateBusy(); });
    connect(&results_, &ResultStore::jobFinished, this, &Session::updateBusy);
    connect(&results_, &ResultStore::ready, this, [this](ResultStore::Kind kind) {
        if (kind == ResultStore::Kind::Circuits && circuits_asked_) startCircuits();  // publishes it when it is the head's
    });
}

Session::~Session() {
    analysis_thread_.quit();
    analysis_thread_.wait();
    delete analysis_context_;
}  // equivalence_ and results_ wait for their running jobs and drop their results

bool Session::busy() const {
    return analysis_running_ || pending_ || equivalence_.busy() || results_.busy() || loading_ ||
           !after_frame_.empty();
}

bool Session::waitForIdle(int timeout_ms) {
    if (!busy()) return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(this, &Session::busyChanged, &loop, [&loop](bool now_busy) {
        if (!now_busy) loop.quit();
    });
    // A view's result (the Q-K map, ...) is asked of results_ without a busyChanged.
    connect(&results_, &ResultStore::jobFinished, &loop, [this, &loop]() {
        if (!busy()) loop.quit();
    });
    timer.start(timeout_ms);
    loop.exec();
    return !busy();
}

double Session::millisecondsSinceRequest() const {
    return double(clock_.nsecsElapsed() - analysis_requested_ns_) / 1e6;
}

void Session::setConfig(const Config& edited) {
    const Config config = constrained(edited, source_);
    config_ = config;
    problems_.clear();
    for (const std::string& problem : config.validate()) problems_ << QString::fromStdString(problem);
    if (!problems_.isEmpty()) {
        pending_.reset();  // the latest intent is invalid: nothing older is worth computing
        updateBusy();
        emit invalid(problems_);
        return;
    }
    Request request{config, source_, clock_.nsecsElapsed()};
    if (analysis_running_)
        pending_ = std::move(request);  // replaces any older pending request
    else
        startAnalysis(std::move(request));
}

void Session::startAnalysis(Request request) {
    analysis_running_ = true;
    equivalence_.cancel();  // residuals of an older analysis are not worth computing now
    ++computations_;
    const long long generation = ++generation_;
    updateBusy();
    // The last result travels with the request: its weights and spectra are reused when
    // only the input or the attention options changed.
    QMetaObject::invokeMethod(analysis_context_, [this, request = std::move(request), generation,
                                                  previous = result_]() {
        // Worker thread: only the copied request, the immutable previous result and the engine.
        try {
            // The heatmaps can be drawn while the spectra are computed.
            const ForwardDone forward_done = [this, generation](std::shared_ptr<const Analysis> partial) {
                QMetaObject::invokeMethod(this, [this, generation, partial]() { onForwardDone(generation, partial); },
                                          Qt::QueuedConnection);
            };
            SourceResult result = computeAnalysis(request.config, request.source, previous, forward_done);
            QMetaObject::invokeMethod(this, [this, generation, ns = request.requested_ns, result]() {
                onAnalysed(generation, ns, result);
            }, Qt::QueuedConnection);
        } catch (const std::exception& error) {
            const QString message = QString::fromStdString(error.what());
            QMetaObject::invokeMethod(this, [this, message]() { onAnalysisFailed(message); },
                                      Qt::QueuedConnection);
        }
    }, Qt::QueuedConnection);
}

void Session::onForwardDone(long long generation, std::shared_ptr<const Analysis> partial) {
    if (generation != generation_ || !analysis_running_) return;  // its analysis is already published
    preview_shown_ = true;
    emit forwardReady(partial);
}

void Session::onAnalysed(long long generation, qint64 requested_ns, SourceResult result) {
    analysis_running_ = false;
    preview_shown_ = false;
    std::shared_ptr<const Analysis> analysis = result.analysis;
    result_ = std::move(result);
    const bool new_weights = !analysis_ || !sameLayer(*analysis_, *analysis);
    analysis_ = analysis;
    analysis_generation_ = generation;
    analysis_requested_ns_ = requested_ns;
    last_update_ms_ = double(clock_.nsecsElapsed() - requested_ns) / 1e6;
    if (pending_) {
        // Start the newer config before anything else so the worker never idles.
        Request next = std::move(*pending_);
        pending_.reset();
        startAnalysis(std::move(next));
    }
    clampSelection();
    if (new_weights || !circuits_ || circuits_->head != head_) circuits_wanted_ = true;
    // Queued before changed(), so that busy() already says what is still to come.
    afterFrame([this, analysis, generation]() {
        // Only the newest analysis is worth its residuals; a newer one schedules its own.
        if (generation == analysis_generation_ && !analysis_running_ && !pending_)
            startEquivalence(analysis, generation);
        if (circuits_wanted_) {
            circuits_wanted_ = false;
            startCircuits();
        }
    });
    emit changed(analysis);
    updateBusy();
}

void Session::afterFrame(std::function<void()> task) {
    after_frame_.push_back(std::move(task));
    if (after_frame_.size() == 1) QCoreApplication::postEvent(this, new AfterFrameEvent(2), Qt::LowEventPriority);
}

bool Session::event(QEvent* event) {
    if (event->type() != AfterFrameEvent::type()) return QObject::event(event);
    // The first hop may run before an UpdateRequest posted after it; the second is behind it.
    if (const int hops = static_cast<AfterFrameEvent*>(event)->hops; hops > 1) {
        QCoreApplication::postEvent(this, new AfterFrameEvent(hops - 1), Qt::LowEventPriority);
        return true;
    }
    const std::vector<std::function<void()>> tasks = std::move(after_frame_);
    after_frame_.clear();
    for (const auto& task : tasks) task();
    updateBusy();
    return true;
}

void Session::onAnalysisFailed(const QString& message) {
    analysis_running_ = false;
    // The heatmaps of the failed analysis were drawn already: back to the last valid one.
    if (std::exchange(preview_shown_, false) && analysis_) emit forwardReady(analysis_);
    if (pending_) {
        Request next = std::move(*pending_);
        pending_.reset();
        startAnalysis(std::move(next));
    }
    emit failed(message);
    updateBusy();
}

void Session::startEquivalence(std::shared_ptr<const Analysis> analysis, long long generation) {
    equivalence_.request([analysis = std::move(analysis)]() -> std::shared_ptr<const Analysis> {
        try {
            Analysis copy = *analysis;  // the published analysis stays immutable
            addEquivalence(copy);
            return std::make_shared<const Analysis>(std::move(copy));
        } catch (const std::exception&) {
            return nullptr;  // no residuals for this one; the status line keeps saying so
        }
    }, [this, generation](std::shared_ptr<const Analysis> result) {
        const bool newer_coming = analysis_running_ || pending_;
        if (result && generation == analysis_generation_ && !newer_coming) {
            analysis_ = result;
            emit equivalenceReady(result);
        }
    });
}

void Session::setSource(WeightSource source) {
    source_ = std::move(source);
    result_ = {};  // nothing of the old weights is reusable
    adoptSource();
}

void Session::loadSource(std::function<WeightSource()> read) {
    loading_ = true;
    updateBusy();
    QMetaObject::invokeMethod(analysis_context_, [this, read = std::move(read)]() {
        // Worker thread, after any running analysis: reading a file never blocks the window.
        std::optional<WeightSource> source;
        QString message;
        bool cancelled = false;
        try {
            source = read();
        } catch (const io::LoadCancelled&) {
            cancelled = true;  // the user's Cancel (LoadProgressRelay): not a failure
        } catch (const std::exception& error) {
            message = QString::fromStdString(error.what());
        }
        QMetaObject::invokeMethod(this, [this, source, message, cancelled]() {
            loading_ = false;
            if (source) setSource(*source);
            else if (cancelled) emit openingCancelled();
            else emit failed(message);
            updateBusy();
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void Session::openModel(const QString& directory) {
    // F16/BF16 layers kept converted: the settings key model/cache_layers (README), as --cache-layers.
    static const Setting<int> kCacheLayers{"model/cache_layers", model::ConversionCache::kDefaultLayers};
    loadSource([path = directory.toStdString(), progress = ui::LoadProgressRelay::instance().reporter(),
                cache_layers = kCacheLayers.get()]() {
        WeightSource source;
        source.model = io::loadCheckpoint(path, progress, cache_layers);  // progress: ui/app/LoadProgressBar.h
        return source;
    });
}

void Session::openLayer(const QString& safetensors, int heads, const QString& prefix) {
    loadSource([path = safetensors.toStdString(), name = QFileInfo(safetensors).fileName().toStdString(), heads,
                prefix = prefix.toStdString()]() {
        auto loaded = std::make_shared<LoadedWeights>();
        loaded->weights = io::loadMultiheadAttention(path, heads, prefix);
        loaded->name = "PyTorch layer " + name;
        WeightSource source;
        source.loaded = std::move(loaded);
        return source;
    });
}

void Session::useGeneratedWeights() {
    if (source_.generated()) return;
    setSource(WeightSource{});
}

void Session::setLayer(int layer) {
    if (!source_.model) return;
    layer = std::clamp(layer, 0, source_.model->config.n_layer - 1);
    if (layer == source_.layer) return;
    source_.layer = layer;
    adoptSource();
}

void Session::setHead(int head) {
    const int heads = analysis_ ? analysis_->weights().heads : 0;
    head = heads > 0 ? std::clamp(head, 0, heads - 1) : std::max(0, head);
    if (head == head_) return;
    head_ = head;
    emit headChanged(head_);
    startCircuits();
    updateBusy();
}

void Session::setCell(int row, int column) {
    if (row < 0 || column < 0) row = column = -1;
    if (row == cell_row_ && column == cell_col_) return;
    cell_row_ = row;
    cell_col_ = column;
    emit cellChanged(row, column);
}

void Session::setHover(const QString& text) {
    if (text == hover_) return;
    hover_ = text;
    emit hoverChanged(text);
}

void Session::clampSelection() {
    const int heads = analysis_->weights().heads;
    if (heads > 0 && head_ >= heads) {
        head_ = heads - 1;
        emit headChanged(head_);
    }
    if (hasCell() && (cell_row_ >= analysis_->nQuery() || cell_col_ >= analysis_->nKeyValue())) setCell(-1, -1);
}

void Session::startCircuits() {
    circuits_asked_ = false;
    if (!analysis_) return;
    if (analysis_->weights().dModel() > kMaxWindowCircuitDModel) {
        circuits_.reset();
        emit circuitsReady(nullptr);
        return;
    }
    // Cached, or formed in the background (the newest selection wins): its arrival calls this again.
    const ResultStore::Result<Circuits> circuits = results_.circuits(analysis_, head_);
    if (!circuits) {
        circuits_asked_ = true;
        return;
    }
    if (*circuits == circuits_ && circuits_) return;
    circuits_ = *circuits;  // null: out of memory; the views say they are not available
    emit circuitsReady(circuits_);
}

void Session::updateBusy() {
    const bool now = busy();
    if (now == busy_) return;
    busy_ = now;
    emit busyChanged(now);
}

}  // namespace headscope::ui
