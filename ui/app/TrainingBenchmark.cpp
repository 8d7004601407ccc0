#include "TrainingBenchmark.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <vector>

#include "Strings.h"
#include "TrainingTab.h"

namespace headscope::ui {

TrainingGuiBenchResult benchmarkTrainingGui(double seconds) {
    TrainingTab tab;
    tab.resize(1280, 800);
    tab.show();
    QElapsedTimer ready;
    ready.start();
    while (!tab.frame() && ready.elapsed() < 5000) QApplication::processEvents(QEventLoop::AllEvents, 10);

    TrainingGuiBenchResult result;
    int frames = 0;
    QObject::connect(&tab, &TrainingTab::frameShown, [&frames] { ++frames; });
    std::vector<double> gaps;
    QElapsedTimer clock;
    clock.start();
    double last = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const double now = double(clock.nsecsElapsed()) / 1e6;
        gaps.push_back(now - last);
        last = now;
    });
    tab.startTraining();
    heartbeat.start(1);
    while (clock.elapsed() < qint64(seconds * 1000)) QApplication::processEvents(QEventLoop::AllEvents, 5);
    heartbeat.stop();
    tab.pauseTraining();
    QElapsedTimer settle;
    settle.start();
    while (tab.frame()->running && settle.elapsed() < 5000) QApplication::processEvents(QEventLoop::AllEvents, 10);

    result.seconds = seconds;
    result.frames = frames;
    result.steps = tab.frame()->steps;
    if (!gaps.empty()) {
        result.longest_stall_ms = *std::max_element(gaps.begin(), gaps.end());
        result.median_stall_ms = median(gaps);
    }
    return result;
}

}  // namespace headscope::ui
