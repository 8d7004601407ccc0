#pragma once
// The GUI's update latency, measured as a user feels it: from a configuration change
// (Session::setConfig) to every view holding the new numbers and repainted.
// Needs a QApplication (the CLI's bench creates one on the offscreen platform).

namespace headscope::ui {

struct GuiBenchResult {
    double median_ms = 0;               // each run changes the seed: new weights and spectra
    double same_weights_median_ms = 0;  // each run changes the temperature: weights reused
    int runs = 0;
};

// BERT-base geometry (d_model 768, 12 heads, d_k 64) on a 16-token sentence, in a shown
// 1400x900 MainWindow. Seed runs change weights, heatmaps and spectra; temperature runs
// (a dragged temperature slider) change the heatmaps only.
GuiBenchResult benchmarkGuiUpdate(int runs);

}  // namespace headscope::ui
