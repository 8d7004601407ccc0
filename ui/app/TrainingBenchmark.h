#pragma once
// The window while training runs (issue 23: "no frame over 50 ms while training runs"): a shown
// Training tab (1280 x 800) trains the default model for a few seconds while a 1 ms heartbeat
// timer runs on the GUI thread; the longest gap between heartbeats is what a user would feel as
// a stall. Needs a QApplication (the CLI's bench creates one on the offscreen platform).

namespace headscope::ui {

struct TrainingGuiBenchResult {
    double seconds = 0;           // of training measured
    double longest_stall_ms = 0;  // longest gap between 1 ms heartbeats on the GUI thread
    double median_stall_ms = 0;   // median gap (about 1 ms when idle)
    int frames = 0;               // frames the tab drew (at most ~10 a second)
    long long steps = 0;          // training steps done meanwhile
};

TrainingGuiBenchResult benchmarkTrainingGui(double seconds);

}  // namespace headscope::ui
