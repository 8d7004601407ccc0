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

    std::vector<double> times;
    for (int run = 0; run < runs; ++run) {
        config.seed = 1000 + static_cast<unsigned>(run);
        QElapsedTimer clock;
        clock.start();
        window.session()->setConfig(config);
        if (!waitForShown(window, 60000)) break;
        window.repaint();  // synchronous paint of the whole window, docks and status line included
        times.push_back(double(clock.nsecsElapsed()) / 1e6);
        window.session()->waitForIdle(60000);  // equivalence runs in the background: not timed
    }
    GuiBenchResult result;
    result.runs = static_cast<int>(times.size());
    if (!times.empty()) {
        std::sort(times.begin(), times.end());
        const std::size_t mid = times.size() / 2;
        result.median_ms = times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
    }
    return result;
}

}  // namespace headscope::ui
