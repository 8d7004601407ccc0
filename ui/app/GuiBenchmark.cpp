#include "GuiBenchmark.h"

#include <algorithm>
#include <vector>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include "HeadGridView.h"
#include "MainWindow.h"
#include "Session.h"
#include "SpectrumView.h"
#include "Strings.h"
#include "StatusPanel.h"

namespace headscope::ui {

namespace {

// Runs the event loop until window emits analysisShown (or timeout_ms passes).
bool waitForShown(MainWindow& window, int timeout_ms) {
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    bool shown = false;
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    QObject::connect(&window, &MainWindow::analysisShown, &loop, [&]() {
        shown = true;
        loop.quit();
    });
    timer.start(timeout_ms);
    loop.exec();
    return shown;
}

// A dragged slider: 30 temperature and seed changes `spacing_ms` apart, while a 1 ms heartbeat
// timer records the longest gap between its ticks on the GUI thread and each shown analysis its
// latency. 5 ms: a burst that coalesces; 20 ms: a paced drag, each change shown and checked.
struct Drag {
    double longest_stall_ms = 0;
    std::vector<double> update_ms;
};

Drag drag(MainWindow& window, Config config, int spacing_ms) {
    Drag result;
    const QMetaObject::Connection shown = QObject::connect(window.session(), &Session::changed, &window, [&]() {
        result.update_ms.push_back(window.session()->lastUpdateMs());
    });
    QElapsedTimer clock;
    clock.start();
    qint64 last = clock.nsecsElapsed(), longest = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&]() {
        const qint64 now = clock.nsecsElapsed();
        longest = std::max(longest, now - last);
        last = now;
    });
    heartbeat.start(1);
    for (int step = 0; step < 30; ++step) {
        config.seed = 5000 + static_cast<unsigned>(step / 2);
        config.temperature = 1.0 + 0.02 * step;
        window.session()->setConfig(config);
        QEventLoop loop;
        QTimer::singleShot(spacing_ms, &loop, &QEventLoop::quit);
        loop.exec();
    }
    window.session()->waitForIdle(60000);
    heartbeat.stop();
    QObject::disconnect(shown);
    result.longest_stall_ms = double(longest) / 1e6;
    return result;
}

}  // namespace

GuiBenchResult benchmarkGuiUpdate(int runs) {
    MainWindowOptions options;
    options.use_settings = false;
    MainWindow window(options);
    window.resize(1400, 900);
    window.show();

    Config config;
    config.d_model = 768;
    config.heads = 12;
    config.text = "The quick brown fox jumps over the lazy dog while the cat sleeps on the mat";  // 16 tokens
    config.seed = 1;
    window.setConfig(config);
    window.waitForCompleteUpdate(60000);  // warm-up: first layout, caches

    // One timed change: setConfig -> analysisShown -> a synchronous repaint of the window.
    double first_paint_ms = -1;  // of the latest change: when the grid drew its heatmaps
    double frame_ms = -1;        // of the latest change: when the dirty widgets were painted
    auto timeChange = [&](const Config& changed) {
        QElapsedTimer clock;
        clock.start();
        first_paint_ms = -1;
        // Connected after the grid's own connection, so this runs once the grid has drawn.
        const QMetaObject::Connection preview =
            QObject::connect(window.session(), &Session::forwardReady, &window,
                             [&]() { first_paint_ms = double(clock.nsecsElapsed()) / 1e6; });
        window.session()->setConfig(changed);
        if (!waitForShown(window, 60000)) return -1.0;
        // The frame as the event loop paints it: the widgets the change made dirty.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
        frame_ms = double(clock.nsecsElapsed()) / 1e6;
        window.repaint();  // synchronous paint of the whole window, docks and status line included
        const double ms = double(clock.nsecsElapsed()) / 1e6;
        QObject::disconnect(preview);
        if (first_paint_ms < 0) first_paint_ms = ms;  // no early heatmaps (a GPT-2 model's layer)
        window.session()->waitForIdle(60000);  // equivalence runs in the background: not timed
        return ms;
    };
    // Stage figures of each seed change: the worker's, then each view drawn again at once.
    std::vector<double> seed_times, temperature_times, first_paints, seed_frames, temperature_frames;
    std::vector<double> stages[10];
    auto timed = [](auto&& f) {
        QElapsedTimer clock;
        clock.start();
        f();
        return double(clock.nsecsElapsed()) / 1e6;
    };
    for (int run = 0; run < runs; ++run) {
        config.seed = 1000 + static_cast<unsigned>(run);
        const double seed_ms = timeChange(config);
        if (seed_ms < 0) break;
        first_paints.push_back(first_paint_ms);
        seed_frames.push_back(frame_ms);
        const auto a = window.session()->analysis();
        const double worker[] = {a->weights_ms, a->input_ms, a->forward_ms, a->spectra_ms, a->equivalence_ms};
        for (int k = 0; k < 5; ++k) stages[k].push_back(worker[k]);
        stages[5].push_back(timed([&] { window.headGrid()->replotNow(); }));
        stages[6].push_back(timed([&] { window.spectrumView()->replotNow(); }));
        stages[7].push_back(timed([&] { window.statusPanel()->showAnalysis(*a, seed_ms); window.statusPanel()->repaint(); }));
        stages[8].push_back(window.session()->lastUpdateMs());
        stages[9].push_back(timed([&] { window.repaint(); }));
        config.temperature = 1.0 + 0.01 * (run + 1);
        const double temperature_ms = timeChange(config);
        if (temperature_ms < 0) break;
        temperature_frames.push_back(frame_ms);
        seed_times.push_back(seed_ms);
        temperature_times.push_back(temperature_ms);
    }
    GuiBenchResult result;
    result.runs = static_cast<int>(seed_times.size());
    result.median_ms = median(seed_times);
    result.same_weights_median_ms = median(temperature_times);
    result.first_paint_ms = median(first_paints);
    result.frame_ms = median(seed_frames);
    result.same_weights_frame_ms = median(temperature_frames);
    double* stage_fields[] = {&result.weights_ms, &result.input_ms, &result.forward_ms, &result.spectra_ms,
                              &result.equivalence_ms, &result.grid_replot_ms, &result.spectrum_replot_ms,
                              &result.status_ms, &result.analysis_ready_ms, &result.window_repaint_ms};
    for (int k = 0; k < 10; ++k) *stage_fields[k] = median(stages[k]);
    const Drag dragged = drag(window, config, 5);
    result.longest_stall_ms = dragged.longest_stall_ms;
    result.drag_update_ms = median(dragged.update_ms);
    result.drag_updates = static_cast<int>(dragged.update_ms.size());
    const Drag paced = drag(window, config, 20);
    result.paced_drag_update_ms = median(paced.update_ms);
    result.paced_drag_updates = static_cast<int>(paced.update_ms.size());
    return result;
}

}  // namespace headscope::ui
