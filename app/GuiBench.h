#pragma once
// headscope --bench: the GUI's figures (GuiBenchmark.h: a MainWindow's update latency;
// TrainingBenchmark.h: the Training tab's stalls while a model trains), offscreen, printed as the
// GUI section of `headscope-cli bench` (text), or as one JSON object with its gui_* and
// training_gui keys. headscope-cli bench runs this program and prints that output in place, so
// the command-line program links no window.

#include <QString>

namespace headscope::app {

// Needs a QApplication on the offscreen platform. runs: seed and temperature changes timed;
// quick: no Training tab figure (a smoke run). Returns the exit status (1: the window showed no
// update, said in one line on stderr).
int runGuiBench(int runs, bool quick, bool json);

// headscope --bench --model DIR [--text T]: the model in the window (ModelWindowBenchmark.h), `runs`
// text and layer changes; the demo's text where `text` is empty. Returns 1 (one line on stderr)
// when a step showed no picture.
int runModelWindowBench(const QString& directory, const QString& text, int runs, bool json);

}  // namespace headscope::app
