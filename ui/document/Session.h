#pragma once
// The document of HeadScope (Tiled's Document plays this part): the current Config and
// the latest valid Analysis of it. Views observe it; they never compute.
//
// setConfig() validates on the GUI thread. A valid config is analysed on a worker thread;
// while one analysis runs, later requests replace a single pending config, so a burst
// (a slider drag) computes the latest value next, not every value in between. Each
// finished analysis is published with changed(); then the equivalence residuals (fused vs
// per-head vs merged logits) are computed on a second worker thread and published with
// equivalenceReady(), unless a newer config is already on its way.

#include <memory>
#include <optional>

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QThread>

#include "Analysis.h"
#include "Config.h"
#include "MetaTypes.h"

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

public slots:
    void setConfig(const headscope::Config& config);

signals:
    void invalid(const QStringList& problems);
    void changed(std::shared_ptr<const headscope::Analysis> analysis);
    void equivalenceReady(std::shared_ptr<const headscope::Analysis> analysis);
    void failed(const QString& message);  // the engine threw (e.g. out of memory)
    void busyChanged(bool busy);

private:
    struct Request {
        Config config;
        qint64 requested_ns = 0;
    };

    void startAnalysis(Request request);
    void onAnalysed(long long generation, qint64 requested_ns, std::shared_ptr<const Analysis> analysis);
    void onAnalysisFailed(const QString& message);
    void startEquivalence(std::shared_ptr<const Analysis> analysis, long long generation);
    void onEquivalence(long long generation, std::shared_ptr<const Analysis> analysis);
    void updateBusy();

    Config config_;
    QStringList problems_;
    std::shared_ptr<const Analysis> analysis_;
    long long analysis_generation_ = 0;  // generation of analysis_
    qint64 analysis_requested_ns_ = 0;   // clock_ time of the setConfig() analysis_ answers

    QThread analysis_thread_, equivalence_thread_;
    QObject* analysis_context_ = nullptr;     // lives in analysis_thread_
    QObject* equivalence_context_ = nullptr;  // lives in equivalence_thread_

    bool analysis_running_ = false;
    std::optional<Request> pending_;
    long long generation_ = 0;
    bool equivalence_running_ = false;
    std::shared_ptr<const Analysis> equivalence_pending_;
    long long equivalence_pending_generation_ = 0;

    bool busy_ = false;
    int computations_ = 0;
    double last_update_ms_ = 0;
    QElapsedTimer clock_;
};

}  // namespace headscope::ui
