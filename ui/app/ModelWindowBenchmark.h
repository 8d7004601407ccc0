#pragma once
// A model in the window, timed as a user waits for it (issue 35): from File > Open model to the
// first heatmaps of the layer in view and to every view drawn, then a change of text and of layer,
// with the GUI thread's longest stall throughout and the process's peak memory.
// Needs a QApplication (headscope --bench --model DIR runs it offscreen).

#include <QString>

namespace headscope::ui {

struct ModelWindowBenchResult {
    QString error;      // empty when every step showed its picture
    int tokens = 0;     // of the text
    int layers = 0;     // of the model
    int runs = 0;       // text changes timed
    // Opening: openModel -> the layer in view's heatmaps (Session::forwardReady, or the whole update
    // where there is no early picture) and -> every view updated (MainWindow::analysisShown).
    double open_first_picture_ms = 0, open_complete_ms = 0;
    // A new text (its last word dropped, then given back), medians: the same two moments.
    double text_first_picture_ms = 0, text_complete_ms = 0;
    // Another layer shown (the trace reused; a long input's maps of that layer recomputed), median.
    double layer_ms = 0;
    // The longest the GUI thread went without running a 1 ms heartbeat, over every step above.
    double longest_stall_ms = 0;
    double peak_mib = 0;       // the process's peak resident memory (getrusage)
    double open_peak_mib = 0;  // the same when the model had opened (every view drawn), before the text changes
};

// The window (1400 x 900, offscreen) shows `text` (a model without a tokenizer reads ids, "17 4 9")
// on generated weights first (not timed), then opens the model folder `directory` as the GUI does.
ModelWindowBenchResult benchmarkModelWindow(const QString& directory, const QString& text, int runs);

}  // namespace headscope::ui
