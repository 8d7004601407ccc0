#include "Session.h"

#include "FreedMemory.h"
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
#include <QThreadPool>
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
    analysis_jobs_.setFinished([this]() {
        // A newer analysis that deferred the circuits failed or was cancelled: form the shown one's.
        if (after_frame_.empty() && !analysis_jobs_.busy()) startWantedCircuits();
        updateBusy();
    });
    equivalence_.setFinished([this]() { updateBusy(); });
    connect(&results_, &ResultStore::jobFinished, this, &Session::updateBusy);
    connect(&results_, &ResultStore::ready, this, [this](ResultStore::Kind kind) {
        if (kind == ResultStore::Kind::Circuits && circuits_asked_) startCircuits();  // publishes it when it is the head's
    });
}

// results_, equivalence_ and analysis_jobs_ (a load too) wait for their running job and drop its
// result; a load still waiting is not started.
Session::~Session() { stopEquivalence(); }

void Session::stopEquivalence() {
    if (equivalence_stop_) equivalence_stop_->store(true, std::memory_order_relaxed);
    equivalence_.cancel();
}

bool Session::busy() const {
    return analysis_jobs_.busy() || equivalence_.busy() || results_.busy() || !after_frame_.empty();
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
    unshown_failure_.clear();
    problems_.clear();
    // A model's tokenizer counts its tokens (computeSourceResult checks the length and padded keys).
    const Config::Tokens tokens = source_.model ? Config::Tokens::OfModel : Config::Tokens::Demo;
    for (const std::string& problem : config.validate(tokens)) problems_ << QString::fromStdString(problem);
    if (!problems_.isEmpty()) {
        analysis_jobs_.dropWaiting();  // the latest intent is invalid: nothing older is worth computing
        if (after_frame_.empty() && !analysis_jobs_.busy()) startWantedCircuits();  // the shown analysis'
        if (!fallBack(problems_.join(QLatin1Char(' ')))) emit invalid(problems_);
        updateBusy();
        return;
    }
    stopEquivalence();  // residuals of an older analysis are not worth computing now
    requestAnalysis(config);
}

void Session::requestAnalysis(const Config& config, bool fallback) {
    const long long request = analysis_jobs_.requests() + 1;  // the number this request() gets
    const qint64 requested_ns = clock_.nsecsElapsed();
    // The last result travels with the request: its weights and spectra are reused when only
    // the input or the attention options changed. A request made while one runs replaces the
    // waiting one (LatestOnly).
    analysis_jobs_.request(
        [config, source = source_, previous = result_](const ForwardDone& publish) -> Analysed {
            // Worker thread: only the copied request, the immutable previous result and the engine.
            try {
                // The heatmaps can be drawn while the spectra are computed.
                return {computeAnalysis(config, source, previous, publish), {}};
            } catch (const std::exception& error) {
                return {{}, QString::fromStdString(error.what())};
            }
        },
        [this](std::shared_ptr<const Analysis> partial) { onForwardDone(std::move(partial)); },
        [this, request, requested_ns, generation = source_generation_, fallback](const Analysed& analysed) {
            if (analysed.error.isEmpty()) onAnalysed(request, requested_ns, generation, analysed);
            else onAnalysisFailed(analysed.error, request, generation, fallback);
        });
    updateBusy();
}

bool Session::fallBack(const QString& why) {
    if (!source_.model || (analysis_ && analysis_generation_ == source_generation_)) return false;
    Config sample = config_;
    sample.text = sampleText(*source_.model);
    sample = constrained(sample, source_);
    if (sample.text == config_.text || !sample.validate(Config::Tokens::OfModel).empty()) return false;
    unshown_failure_ = why;
    requestAnalysis(sample, true);
    return true;
}

void Session::reportUnshown() {
    if (!problems_.isEmpty()) emit invalid(problems_);
    else if (!unshown_failure_.isEmpty()) emit failed(unshown_failure_);
}

void Session::onForwardDone(std::shared_ptr<const Analysis> partial) {
    preview_shown_ = true;
    emit forwardReady(partial);
}

void Session::onAnalysed(long long request, qint64 requested_ns, long long generation, const Analysed& analysed) {
    // The next waiting analysis, if any, has already started (the worker never idles).
    preview_shown_ = false;
    std::shared_ptr<const Analysis> analysis = analysed.result.analysis;
    result_ = analysed.result;
    const bool new_weights = !analysis_ || !sameLayer(*analysis_, *analysis);
    // A long input's maps, this one's forward or the analysis it replaces: their memory goes back
    // to the system once the views have let go of the old one (FreedMemory.h).
    const auto large = [](const std::shared_ptr<const Analysis>& a) {
        return a && a->mapBytes() > ResultStore::kRetainedMapBytes;
    };
    const bool hand_back = large(analysis) || (large(analysis_) && analysis_ != analysis);
    analysis_ = analysis;
    results_.releaseLargeAnalysesOtherThan(analysis_);  // a long input's older maps are not kept by the caches
    analysis_request_ = request;
    analysis_generation_ = generation;
    analysis_requested_ns_ = requested_ns;
    last_update_ms_ = double(clock_.nsecsElapsed() - requested_ns) / 1e6;
    clampSelection();
    if (new_weights || !circuits_ || circuits_->head != head_) circuits_wanted_ = true;
    // Queued before changed(), so that busy() already says what is still to come.
    afterFrame([this, analysis, request, hand_back]() {
        if (hand_back) QThreadPool::globalInstance()->start([] { handBackFreedMemory(); });
        // Only the newest analysis is worth its residuals; a newer one schedules its own.
        if (request == analysis_request_ && request == analysis_jobs_.requests()) startEquivalence(analysis, request);
        // A newer analysis on its way forms them for itself: in a drag these would be stale at once,
        // and their products would take a core from the next analysis.
        if (request == analysis_jobs_.requests() || !analysis_jobs_.busy()) startWantedCircuits();
    });
    emit changed(analysis);
    // A model's sample text stood in for the user's: say why the user's is not drawn.
    if (request == analysis_jobs_.requests()) reportUnshown();
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

void Session::onAnalysisFailed(const QString& message, long long request, long long generation, bool fallback) {
    // The heatmaps of the failed analysis were drawn already: back to the last valid one.
    if (std::exchange(preview_shown_, false) && analysis_) emit forwardReady(analysis_);
    // The user's latest config failed on weights just opened: the model on its sample text meanwhile.
    const bool latest = request == analysis_jobs_.requests() && generation == source_generation_;
    if (!fallback && latest && fallBack(message)) return updateBusy();
    if (fallback) unshown_failure_.clear();
    emit failed(message);
    updateBusy();
}

void Session::startEquivalence(std::shared_ptr<const Analysis> analysis, long long request) {
    stopEquivalence();  // an older analysis' check, still running, is not worth finishing
    if (analysis->mapBytes() > kMaxEquivalenceMapBytes) return;  // a long input: the status line says it is not checked
    // Cancelled by every newer valid request (setConfig), so a result that arrives is current.
    equivalence_stop_ = std::make_shared<std::atomic<bool>>(false);
    equivalence_.request([analysis = std::move(analysis), stop = equivalence_stop_,
                          stopped = checks_stopped_]() -> std::shared_ptr<const Analysis> {
        try {
            Analysis copy = *analysis;  // the published analysis stays immutable
            addEquivalence(copy, stop.get());
            return std::make_shared<const Analysis>(std::move(copy));
        } catch (const EquivalenceStopped&) {
            ++*stopped;  // a newer change stopped it: its result would have been dropped anyway
            return nullptr;
        } catch (const std::exception&) {
            return nullptr;  // no residuals for this one; the status line keeps saying so
        }
    }, [this, request](std::shared_ptr<const Analysis> result) {
        if (result && request == analysis_request_) {
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
    // An ordered job: after the running analysis, never replaced by a newer analysis request.
    analysis_jobs_.enqueue([read = std::move(read)]() -> Loaded {
        // Worker thread: reading a file never blocks the window.
        try {
            return {read(), {}, false};
        } catch (const io::LoadCancelled&) {
            return {std::nullopt, {}, true};  // the user's Cancel (LoadProgressRelay)
        } catch (const std::exception& error) {
            return {std::nullopt, QString::fromStdString(error.what()), false};
        }
    }, [this](const Loaded& loaded) {
        if (loaded.source) setSource(*loaded.source);
        else if (loaded.cancelled) emit openingCancelled();
        else emit failed(loaded.error);
        updateBusy();
    });
    updateBusy();
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

void Session::startWantedCircuits() {
    if (!std::exchange(circuits_wanted_, false)) return;
    startCircuits();
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
