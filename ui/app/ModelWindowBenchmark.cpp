#include "ModelWindowBenchmark.h"

#include <sys/resource.h>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <vector>

#include "MainWindow.h"
#include "Session.h"
#include "Strings.h"

namespace headscope::ui {
namespace {

double peakMiB() {  // the process's peak resident memory so far
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

constexpr int kTimeoutMs = 600000;  // a 2,048-token forward of a 1B model on 2 cores takes about a minute

// One change timed from `start`: the first heatmaps (forwardReady, or the update itself) and the
// whole update (analysisShown); false when no update came within the timeout or the session failed.
struct Moments {
    double first_ms = -1, complete_ms = -1;
    QString error;
};

template <typename Start>
Moments timeChange(MainWindow& window, Start&& start) {
    Moments m;
    QElapsedTimer clock;
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    const auto ms = [&clock] { return double(clock.nsecsElapsed()) / 1e6; };
    const QMetaObject::Connection connections[] = {
        QObject::connect(window.session(), &Session::forwardReady, &loop, [&] {
            if (m.first_ms < 0) m.first_ms = ms();
        }),
        QObject::connect(&window, &MainWindow::analysisShown, &loop, [&] {
            m.complete_ms = ms();
            loop.quit();
        }),
        QObject::connect(window.session(), &Session::failed, &loop, [&](const QString& why) {
            m.error = why;
            loop.quit();
        }),
        QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit)};
    timeout.start(kTimeoutMs);
    clock.start();
    start();
    loop.exec();
    for (const auto& c : connections) QObject::disconnect(c);
    if (m.complete_ms < 0 && m.error.isEmpty()) m.error = QStringLiteral("no update within %1 s").arg(kTimeoutMs / 1000);
    if (m.first_ms < 0) m.first_ms = m.complete_ms;  // no early picture: the update is the first
    window.session()->waitForIdle(kTimeoutMs);  // the equivalence check in the background: not timed
    return m;
}

}  // namespace

ModelWindowBenchResult benchmarkModelWindow(const QString& directory, const QString& text, int runs) {
    ModelWindowBenchResult result;
    MainWindowOptions options;
    options.use_settings = false;
    MainWindow window(options);
    window.resize(1400, 900);
    window.show();
    if (!text.isEmpty()) window.setText(text);
    if (!window.waitForCompleteUpdate(kTimeoutMs, &result.error)) return result;
    window.session()->waitForIdle(kTimeoutMs);  // the demo's checks in the background: not the model's time

    // The GUI thread's heartbeat, over everything that follows.
    QElapsedTimer beat_clock;
    beat_clock.start();
    qint64 last = beat_clock.nsecsElapsed(), longest = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = beat_clock.nsecsElapsed();
        longest = std::max(longest, now - last);
        last = now;
    });
    heartbeat.start(1);

    const Moments open = timeChange(window, [&] { window.openModel(directory); });  // in the background, as File > Open
    if (!open.error.isEmpty()) {
        result.error = open.error;
        return result;
    }
    const auto trace = window.session()->trace();
    result.tokens = trace ? trace->n() : 0;
    result.layers = trace ? int(trace->layers.size()) : 0;
    result.open_peak_mib = peakMiB();
    result.open_first_picture_ms = open.first_ms;
    result.open_complete_ms = open.complete_ms;

    // The text shown (the model's sample text where none was given), and it without its last word.
    const QString full = QString::fromStdString(window.session()->config().text);
    const QStringList words = full.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString shorter = words.mid(0, std::max<qsizetype>(1, words.size() - 1)).join(QLatin1Char(' '));
    std::vector<double> first, complete, layer;
    for (int run = 0; run < runs; ++run) {
        const Moments change = timeChange(window, [&] { window.setText(run % 2 == 0 ? shorter : full); });
        if (!change.error.isEmpty()) {
            result.error = change.error;
            return result;
        }
        first.push_back(change.first_ms);
        complete.push_back(change.complete_ms);
        const int to = (window.session()->source().layer + 1) % std::max(1, result.layers);
        const Moments shown = timeChange(window, [&] { window.session()->setLayer(to); });
        if (!shown.error.isEmpty()) {
            result.error = shown.error;
            return result;
        }
        layer.push_back(shown.complete_ms);
    }
    heartbeat.stop();
    result.runs = runs;
    result.text_first_picture_ms = median(first);
    result.text_complete_ms = median(complete);
    result.layer_ms = median(layer);
    result.longest_stall_ms = double(longest) / 1e6;
    result.peak_mib = peakMiB();
    return result;
}

}  // namespace headscope::ui
