#pragma once
// The GUI's update latency, measured as a user feels it: from a configuration change
// (Session::setConfig) to every view holding the new numbers and repainted.
// Needs a QApplication (the CLI's bench creates one on the offscreen platform).

namespace headscope::ui {

struct GuiBenchResult {
    double median_ms = 0;
    int runs = 0;
};

// BERT-base geometry (d_model 768, 12 heads, d_k 64) on a 16-token sentence, in a shown
// 1400x900 MainWindow; each run changes the seed, so weights, heatmaps and spectra all change.
GuiBenchResult benchmarkGuiUpdate(int runs);

}  // namespace headscope::ui
