#pragma once
// The document of HeadScope (Tiled's Document plays this part): the current Config and
// the latest valid Analysis of it. Views observe it; they never compute.
//
// setConfig() validates on the GUI thread. A valid config is analysed in the background by
// LatestOnly (ui/views/LatestOnly.h, Handover::EveryStarted), the one background helper: while
// one analysis runs, later requests replace a single waiting request, so a burst (a slider drag)
// computes the latest value next, not every value in between. Each analysis that started is
// published with changed(); forwardReady() first publishes it as soon as its forward pass is done
// (a preview of the job), so the heatmaps are drawn while the spectra are computed. Then the
// equivalence residuals (fused vs per-head vs merged logits) are computed in the background
// (LatestOnly) and published with equivalenceReady(), unless a newer config is already on its way.
// Opening a model or a layer file is an ordered job of the same helper (enqueue): it runs on the
// same worker after the running analysis, before the waiting one, and is never replaced.
//
// It also holds the selection every view follows: the selected head, the selected cell
// (query row, key column) and the hover text. The selected head's circuits W_QK,i and W_OV,i
// (d_model x d_model each) are formed in the background by its ResultStore and published with
// circuitsReady(); views never form them.
//
// It owns the ResultStore (results()) every derived result of an analysis comes from: the
// circuits, the Q-K map, the score breakdown, the projection product, a rotary layer's
// W_QK,i(Delta) and logit curve, each computed once off the GUI thread and cached. The window
// gives it to the views, which draw what it publishes.
//
// Equivalence and circuits of a new analysis start after the frame that shows it: on two cores
// they would otherwise take a share of the GUI thread's core while it draws. The circuits wait
// for the newest analysis when a newer one is on its way (a drag forms only the last one's).
//
// As the document (Tiled's Document; SessionDocument.cpp) it owns the undo stack of config
// changes, the file name and modified flag of its .headscope.json file, the view options that
// file carries, loading and saving it, and the policy for a new weight source (its mask is
// causal; the demo's text becomes one the model encodes, with a note; a text of the user's is
// kept, and while it cannot be drawn the new model is shown on its own sample text with the
// reason, never the old weights' picture). A window only shows these; tests need no window.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

class QUndoStack;

#include "Analysis.h"
#include "Circuits.h"
#include "Config.h"
#include "LatestOnly.h"
#include "MetaTypes.h"
#include "ResultStore.h"
#include "ViewOptions.h"
#include "WeightSource.h"

namespace headscope::ui {

class Session : public QObject {
    Q_OBJECT

public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;  // waits for a running computation to finish

    // The config last given to setConfig(), valid or not.
    const Config& config() const { return config_; }
    // Problems of config(); empty when it is valid.
    const QStringList& problems() const { return problems_; }
    // The latest valid analysis (with equivalence once equivalenceReady was emitted);
    // nullptr until the first one is ready.
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }

    // True while an analysis, a load, the equivalence or a result of results() is running or waiting to run.
    bool busy() const;
    // Runs a local event loop until busy() is false; false on timeout.
    bool waitForIdle(int timeout_ms);

    // Number of analyze() calls started so far (coalescing makes this < setConfig calls).
    int computations() const { return int(analysis_jobs_.started()); }
    // Equivalence checks started so far, and those a newer change stopped before they ended.
    long long equivalenceChecksStarted() const { return equivalence_.started(); }
    int equivalenceChecksStopped() const { return checks_stopped_->load(); }
    // Milliseconds from the setConfig() call of the latest analysis to its changed().
    double lastUpdateMs() const { return last_update_ms_; }
    // Milliseconds since the setConfig() call that the latest analysis answers; read it
    // after the views have drawn the analysis to time a whole update.
    double millisecondsSinceRequest() const;

    // The selection. head() is always a head of the latest analysis (0 before the first).
    int head() const { return head_; }
    // The selected (query row, key column), or (-1, -1) when no cell is selected.
    int cellRow() const { return cell_row_; }
    int cellColumn() const { return cell_col_; }
    bool hasCell() const { return cell_row_ >= 0 && cell_col_ >= 0; }
    const QString& hover() const { return hover_; }
    // Circuits of head() for the latest analysis' weights; nullptr until formed (or when
    // d_model is above kMaxWindowCircuitDModel).
    std::shared_ptr<const Circuits> circuits() const { return circuits_; }
    // The derived results of the analyses (ResultStore.h): what views and export read.
    ResultStore* results() { return &results_; }

    // Where the weights come from (generated, a loaded layer, a GPT-2 model and its layer).
    const WeightSource& source() const { return source_; }
    // GPT-2 only: every layer's attention for the current text, and the next-token list.
    std::shared_ptr<const model::Trace> trace() const { return result_.trace; }
    // A decoder's most probable next tokens; an encoder's guesses at each masked position.
    const std::vector<model::NextToken>& nextTokens() const { return result_.next_tokens; }
    const std::vector<MaskedGuesses>& fillMask() const { return result_.fill_mask; }

    // Loads on the worker thread, then analyses the current text with it: sourceChanged() on
    // success, openingCancelled() when the user cancelled it, failed(message) otherwise (the
    // previous weights stay).
    void openModel(const QString& directory);
    void openLayer(const QString& safetensors, int heads, const QString& prefix);
    // Back to weights generated from the config.
    void useGeneratedWeights();
    void setLayer(int layer);  // clamped to the model's layers

    // Knocking heads out (model/Ablation.h; SessionAblation.cpp). The set and its mode are part of
    // the source. A model: the worker runs it intact and with the heads off, every view shows the
    // ablated run, and effects() compares the two. Generated weights or a loaded layer (layer 0):
    // no next token to lose, so layerAblation() holds the layer's output before and after.
    bool canAblate() const { return source_.model != nullptr || analysis_ != nullptr; }
    const model::Ablation& ablation() const { return source_.ablation; }
    void setAblation(model::Ablation ablation);  // heads the model lacks are dropped
    void knockOut(int layer, int head);
    void restore(int layer, int head);
    void restoreAll();
    void setAblationMode(model::AblationMode mode);
    // GPT-2 only: the run without heads off (trace() itself when none are), and what the heads off changed.
    std::shared_ptr<const model::Trace> intactTrace() const { return result_.intact; }
    std::shared_ptr<const model::AblationEffects> effects() const { return result_.effects; }
    // A single layer with heads off: its output before and after; null otherwise.
    std::shared_ptr<const model::LayerAblation> layerAblation() const { return result_.layer_ablation; }

    // The document. editConfig() is a change the user made (a control, a preset, a lesson step):
    // one step of undoStack(), named after what changed or step when given, then setConfig().
    // Undo and redo apply their config and emit configReplaced(). The history is cleared when a
    // session file is loaded or other weights (a model, a layer file, generated weights again)
    // replace the current ones; another layer of the same model keeps it.
    QUndoStack* undoStack() const { return undo_; }
    void editConfig(const Config& config, const QString& step = {});
    // The .headscope.json file last loaded or saved (empty: none); modified since then (a config
    // step not undone, or other view options).
    const QString& fileName() const { return file_name_; }
    void setFileName(const QString& path);
    bool isModified() const { return modified_; }
    // Empties the history and clears the modified flag: where the program starts is not a step.
    void startNewHistory();
    // How the views draw; saved into session files with the config.
    const ViewOptions& viewOptions() const { return view_options_; }
    void setViewOptions(const ViewOptions& options);  // always emits viewOptionsChanged
    // Session files: load replaces the config and view options and starts a new history; save
    // writes both. False with the reason (naming the file) in *error; the document is unchanged.
    bool load(const QString& path, QString* error = nullptr);
    bool save(const QString& path, QString* error = nullptr);

public slots:
    void setConfig(const headscope::Config& config);
    void setHead(int head);
    void setCell(int row, int column);  // (-1, -1) clears it
    void setHover(const QString& text);

signals:
    void invalid(const QStringList& problems);
    void changed(std::shared_ptr<const headscope::Analysis> analysis);
    // Before changed(): the analysis as soon as its forward pass is done,
    // while its spectra are still being computed (then changed() brings the same object,
    // complete). Receivers read its config, input, weights and results only, never its spectra
    // or logits spectra; after a failure this brings the last valid analysis back.
    void forwardReady(std::shared_ptr<const headscope::Analysis> analysis);
    void equivalenceReady(std::shared_ptr<const headscope::Analysis> analysis);
    void failed(const QString& message);  // the engine threw (e.g. out of memory)
    // Something the user should know that is no failure: the demo's text was replaced by one the
    // model just opened can encode.
    void noted(const QString& text);
    void openingCancelled();              // a load stopped by its Cancel (io::LoadCancelled); the previous weights stay
    void busyChanged(bool busy);
    void headChanged(int head);
    void cellChanged(int row, int column);
    void hoverChanged(const QString& text);
    void circuitsReady(std::shared_ptr<const headscope::Circuits> circuits);
    void sourceChanged();  // a model or layer was opened or closed, or the layer changed
    void ablationChanged();  // heads were knocked out or restored, or the mode changed (before the recompute)
    // The document replaced the config itself (undo, redo, a loaded file, a new weight source):
    // controls show config(). Not emitted for setConfig() or editConfig().
    void configReplaced(const headscope::Config& config);
    void viewOptionsChanged(const headscope::ui::ViewOptions& options);
    void fileNameChanged(const QString& path);
    void modifiedChanged(bool modified);

protected:
    bool event(QEvent* event) override;

private:
    // What an analysis job hands back: its result, or the engine's message.
    struct Analysed {
        SourceResult result;
        QString error;  // not empty: the engine threw
    };
    // What a load hands back: the weights, or why not.
    struct Loaded {
        std::optional<WeightSource> source;
        QString error;
        bool cancelled = false;  // the user's Cancel (io::LoadCancelled): not a failure
    };
    void setSource(WeightSource source);
    // After source_ changed: the history, sourceChanged(), and the config the new weights need.
    void adoptSource();
    void restoreConfig(const Config& config);  // an undo or redo step
    void updateModified();
    // Asks the worker for the analysis of config (valid): previewed, then published or failed.
    void requestAnalysis(const Config& config, bool fallback = false);
    // After config_ proved invalid or its analysis failed (why): while the analysis on screen is of
    // other weights, a model is shown on its sample text instead (why is reported once that is
    // published). False when there is nothing to fall back to.
    bool fallBack(const QString& why);
    // Reports config_'s problems or unshown_failure_ again, after a fallback analysis was published.
    void reportUnshown();
    // Runs read() as an ordered job of the analysis worker; its source is set, or its exception is failed().
    void loadSource(std::function<WeightSource()> read);

    // On the GUI thread, for the analysis of request number `request` asked at requested_ns.
    void onForwardDone(std::shared_ptr<const Analysis> partial);
    void onAnalysed(long long request, qint64 requested_ns, long long generation, const Analysed& analysed);
    void onAnalysisFailed(const QString& message, long long request, long long generation, bool fallback);
    void startEquivalence(std::shared_ptr<const Analysis> analysis, long long request);
    void stopEquivalence();  // the running check ends early, a waiting one is dropped
    void updateBusy();
    void clampSelection();
    void startCircuits();
    void startWantedCircuits();  // startCircuits() when circuits_wanted_, which it clears
    // Runs task after the widgets painted what is queued now (two low-priority hops behind
    // their UpdateRequest); busy() until then.
    void afterFrame(std::function<void()> task);

    // Declared first: destroyed last, after the workers that could still ask it; its own
    // destructor waits for its running jobs.
    ResultStore results_;

    Config config_;
    WeightSource source_;
    SourceResult result_;  // the latest valid result (analysis_ is result_.analysis, with equivalence)
    QStringList problems_;
    std::shared_ptr<const Analysis> analysis_;
    long long analysis_request_ = 0;     // analysis_jobs_' request number of analysis_
    // Each new weight source (a model, a layer of it, a layer file, generated weights again) counts
    // one; analysis_ shows the current one when their counts agree.
    long long source_generation_ = 0;
    long long analysis_generation_ = -1;
    QString unshown_failure_;  // why config_ is not drawn, reported once the fallback is published
    qint64 analysis_requested_ns_ = 0;   // clock_ time of the setConfig() analysis_ answers

    // Analyses (previewed with their forward pass) and, as ordered jobs, model and layer loads.
    LatestOnly<Analysed, std::shared_ptr<const Analysis>> analysis_jobs_{
        LatestOnly<Analysed, std::shared_ptr<const Analysis>>::Handover::EveryStarted};
    LatestOnly<std::shared_ptr<const Analysis>> equivalence_;  // the analysis with its residuals
    // Set when the running check's residuals are no longer wanted: it skips the heads not started
    // (each a (d_model, d_model) product) and leaves the cores to the newer analysis.
    std::shared_ptr<std::atomic<bool>> equivalence_stop_;
    std::shared_ptr<std::atomic<int>> checks_stopped_ = std::make_shared<std::atomic<int>>(0);

    int head_ = 0;
    int cell_row_ = -1, cell_col_ = -1;
    QString hover_;
    std::shared_ptr<const Circuits> circuits_;
    bool circuits_wanted_ = false; // the weights or head changed: form them after the frame
    bool circuits_asked_ = false;  // the selected head's circuits were asked of results_ and are on their way
    std::vector<std::function<void()>> after_frame_;

    bool preview_shown_ = false;  // forwardReady() showed the running analysis' heatmaps

    QUndoStack* undo_ = nullptr;
    std::weak_ptr<const void> undo_weights_;  // the model or layer file the history belongs to (none: generated)
    bool restoring_ = false;  // an undo or redo is applying a config
    QString file_name_;
    ViewOptions view_options_;
    bool options_modified_ = false;  // the view options changed since the file was loaded or saved
    bool modified_ = false;

    bool busy_ = false;
    double last_update_ms_ = 0;
    QElapsedTimer clock_;
};

}  // namespace headscope::ui
