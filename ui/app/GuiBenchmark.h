#pragma once
// The GUI's update latency, measured as a user feels it: from a configuration change
// (Session::setConfig) to every view holding the new numbers and repainted.
// Needs a QApplication (the CLI's bench creates one on the offscreen platform).

namespace headscope::ui {

struct GuiBenchResult {
    double median_ms = 0;               // each run changes the seed: new weights and spectra
    double same_weights_median_ms = 0;  // each run changes the temperature: weights reused
    int runs = 0;
    // Medians of the stages of a seed change: the worker's (from the Analysis) and each visible
    // view's redraw (timed by drawing it again at once after the update).
    double weights_ms = 0, input_ms = 0, forward_ms = 0, spectra_ms = 0, equivalence_ms = 0;
    double grid_replot_ms = 0, spectrum_replot_ms = 0, status_ms = 0;
    // What the update is made of: setConfig -> the analysis back on the GUI thread (worker and
    // queue; the rest of median_ms is the GUI thread's), and one synchronous repaint of the
    // whole window with nothing changed (the bench's closing repaint paints every widget).
    double analysis_ready_ms = 0, window_repaint_ms = 0;
    // Seed changes: setConfig -> the head grid has drawn the new heatmaps (Session::forwardReady,
    // before the spectra are done; median_ms waits for everything).
    double first_paint_ms = 0;
    // The frame as the running app paints it: setConfig -> the widgets the change made dirty are
    // painted (the queued update requests). median_ms adds a repaint of every widget on top.
    double frame_ms = 0, same_weights_frame_ms = 0;
    // The longest the GUI thread went without running a 1 ms heartbeat timer while 30 changes
    // (a slider drag) arrived 5 ms apart: what a user would feel as a stall.
    double longest_stall_ms = 0;
    // The same drag: median of setConfig -> analysis back on the GUI thread over the analyses it
    // showed (Session::lastUpdateMs), each competing with what the change before it left running.
    double drag_update_ms = 0;
    int drag_updates = 0;
    // A paced drag, changes 20 ms apart: each analysis shown, and the equivalence check each
    // starts after its frame stopped by the next change.
    double paced_drag_update_ms = 0;
    int paced_drag_updates = 0;
};

// BERT-base geometry (d_model 768, 12 heads, d_k 64) on a 16-token sentence, in a shown
// 1400x900 MainWindow. Seed runs change weights, heatmaps and spectra; temperature runs
// (a dragged temperature slider) change the heatmaps only.
GuiBenchResult benchmarkGuiUpdate(int runs);

}  // namespace headscope::ui
