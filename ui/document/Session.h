#pragma once
// The document of HeadScope (Tiled's Document plays this part): the current Config and
// the latest valid Analysis of it. Views observe it; they never compute.
//
// setConfig() validates on the GUI thread. A valid config is analysed on a worker thread;
// while one analysis runs, later requests replace a single pending config, so a burst
// (a slider drag) computes the latest value next, not every value in between. Each
// finished analysis is published with changed() (forwardReady() first publishes it as soon as
// its forward pass is done, so the heatmaps are drawn while the spectra are computed); then the equivalence residuals (fused vs
// per-head vs merged logits) are computed on a second worker thread and published with
// equivalenceReady(), unless a newer config is already on its way.
//
// It also holds the selection every view follows: the selected head, the selected cell
// (query row, key column) and the hover text. The selected head's circuits W_QK,i and W_OV,i
// (d_model x d_model each) are formed on a third worker thread and published with
// circuitsReady(); views never form them.
//
// Equivalence and circuits of a new analysis start after the frame that shows it: on two cores
// they would otherwise take a share of the GUI thread's core while it draws.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QThread>

#include "Analysis.h"
#include "Circuits.h"
#include "Config.h"
#include "MetaTypes.h"
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

    // True while an analysis or equivalence is running or waiting to run.
    bool busy() const;
    // Runs a local event loop until busy() is false; false on timeout.
    bool waitForIdle(int timeout_ms);

    // Number of analyze() calls started so far (coalescing makes this < setConfig calls).
    int computations() const { return computations_; }
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

    // Where the weights come from (generated, a loaded layer, a GPT-2 model and its layer).
    const WeightSource& source() const { return source_; }
    // GPT-2 only: every layer's attention for the current text, and the next-token list.
    std::shared_ptr<const model::Trace> trace() const { return result_.trace; }
    const std::vector<model::NextToken>& nextTokens() const { return result_.next_tokens; }

    // Loads on the worker thread, then analyses the current text with it: sourceChanged() on
    // success, failed(message) otherwise (the previous weights stay).
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
    void busyChanged(bool busy);
    void headChanged(int head);
    void cellChanged(int row, int column);
    void hoverChanged(const QString& text);
    void circuitsReady(std::shared_ptr<const headscope::Circuits> circuits);
    void sourceChanged();  // a model or layer was opened or closed, or the layer changed
    void ablationChanged();  // heads were knocked out or restored, or the mode changed (before the recompute)

protected:
    bool event(QEvent* event) override;

private:
    struct Request {
        Config config;
        WeightSource source;
        qint64 requested_ns = 0;
    };
    void setSource(WeightSource source);
    // Runs read() on the analysis worker; its source is set, or its exception is failed().
    void loadSource(std::function<WeightSource()> read);

    void startAnalysis(Request request);
    void onForwardDone(long long generation, std::shared_ptr<const Analysis> partial);
    void onAnalysed(long long generation, qint64 requested_ns, SourceResult result);
    void onAnalysisFailed(const QString& message);
    void startEquivalence(std::shared_ptr<const Analysis> analysis, long long generation);
    void onEquivalence(long long generation, std::shared_ptr<const Analysis> analysis);
    void updateBusy();
    void clampSelection();
    void startCircuits();
    // Runs task after the widgets painted what is queued now (two low-priority hops behind
    // their UpdateRequest); busy() until then.
    void afterFrame(std::function<void()> task);

    Config config_;
    WeightSource source_;
    SourceResult result_;  // the latest valid result (analysis_ is result_.analysis, with equivalence)
    QStringList problems_;
    std::shared_ptr<const Analysis> analysis_;
    long long analysis_generation_ = 0;  // generation of analysis_
    qint64 analysis_requested_ns_ = 0;   // clock_ time of the setConfig() analysis_ answers

    QThread analysis_thread_, equivalence_thread_, circuits_thread_;
    QObject* analysis_context_ = nullptr;     // lives in analysis_thread_
    QObject* equivalence_context_ = nullptr;  // lives in equivalence_thread_
    QObject* circuits_context_ = nullptr;     // lives in circuits_thread_

    int head_ = 0;
    int cell_row_ = -1, cell_col_ = -1;
    QString hover_;
    std::shared_ptr<const Circuits> circuits_;
    bool circuits_running_ = false;
    bool circuits_stale_ = false;  // the selection or weights changed while circuits ran
    bool circuits_wanted_ = false; // the weights or head changed: form them after the frame
    std::vector<std::function<void()>> after_frame_;
    long long circuits_generation_ = 0;

    bool analysis_running_ = false;
    bool preview_shown_ = false;  // forwardReady() showed the running analysis' heatmaps
    std::optional<Request> pending_;
    long long generation_ = 0;
    bool equivalence_running_ = false;
    std::shared_ptr<const Analysis> equivalence_pending_;
    long long equivalence_pending_generation_ = 0;

    bool busy_ = false;
    bool loading_ = false;  // a model or layer is being read
    int computations_ = 0;
    double last_update_ms_ = 0;
    QElapsedTimer clock_;
};

}  // namespace headscope::ui
