#include "GuiBenchmark.h"

#include <algorithm>
#include <vector>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include "MainWindow.h"
#include "Session.h"

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
    auto timeChange = [&](const Config& changed) {
        QElapsedTimer clock;
        clock.start();
        window.session()->setConfig(changed);
        if (!waitForShown(window, 60000)) return -1.0;
        window.repaint();  // synchronous paint of the whole window, docks and status line included
        const double ms = double(clock.nsecsElapsed()) / 1e6;
        window.session()->waitForIdle(60000);  // equivalence runs in the background: not timed
        return ms;
    };
    std::vector<double> seed_times, temperature_times;
    for (int run = 0; run < runs; ++run) {
        config.seed = 1000 + static_cast<unsigned>(run);
        const double seed_ms = timeChange(config);
        config.temperature = 1.0 + 0.01 * (run + 1);
        const double temperature_ms = timeChange(config);
        if (seed_ms < 0 || temperature_ms < 0) break;
        seed_times.push_back(seed_ms);
        temperature_times.push_back(temperature_ms);
    }
    auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        const std::size_t mid = v.size() / 2;
        return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    };
    GuiBenchResult result;
    result.runs = static_cast<int>(seed_times.size());
    result.median_ms = median(seed_times);
    result.same_weights_median_ms = median(temperature_times);
    return result;
}

}  // namespace headscope::ui
