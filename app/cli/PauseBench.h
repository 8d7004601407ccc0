#pragma once
// The window's new-weights update as the engine computes it (issue 35): analyze() of a new seed at
// BERT-base with the GUI bench's 16 tokens (weights, input, forward, every head's spectra; no
// equivalence, which the window checks later), back to back and after a pause, one sample of each
// in turn. A click comes after a pause; a drag's changes come back to back; the GUI bench times
// its changes after the window went idle. Back to back it is the window's floor: whatever the
// window adds (handing the analysis over, drawing the heatmaps while the spectra run) comes on top.
// On the 2-core AMD EPYC Zen 3 (2026-12-04) a /tmp harness over libheadscope_core.a found a pause
// costly (the pool's sleeping helper began its first task a median 458 us after a loop started,
// up to 3 ms, against 7 us back to back; analyze() took 12-14 ms or, in about half the samples,
// 23-25 ms), while this bench, the same hour, measured 14.8 ms back to back and 0.99x after the
// pause: the figure to read is this one, taken in turn.

namespace headscope::cli {

struct PauseFigures {
    int d_model = 0, heads = 0, tokens = 0, pause_ms = 0, runs = 0;
    double back_to_back_ms = 0, back_to_back_weights_ms = 0;  // medians, a change right after another
    double after_pause_ms = 0, after_pause_weights_ms = 0;    // medians, a change after pause_ms idle
};

PauseFigures measureAfterPause(int d_model, int heads, int tokens, int runs, int pause_ms = 50);

}  // namespace headscope::cli
