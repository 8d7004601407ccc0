#include "GuiBench.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "GuiBenchmark.h"
#include "ModelWindowBenchmark.h"
#include "TrainingBenchmark.h"

namespace headscope::app {

int runGuiBench(int runs, bool quick, bool json) {
    const ui::GuiBenchResult g = ui::benchmarkGuiUpdate(runs);
    if (g.runs == 0) {
        std::fprintf(stderr, "headscope: --bench: the window showed no update within 60 s\n");
        return 1;
    }
    std::optional<ui::TrainingGuiBenchResult> training_gui;
    if (!quick) training_gui = ui::benchmarkTrainingGui(4.0);

    if (json) {
        nlohmann::json j;
        j["gui_update_ms"] = g.median_ms;
        j["gui_update_same_weights_ms"] = g.same_weights_median_ms;
        j["gui_runs"] = g.runs;
        j["gui_stages_ms"] = {{"weights", g.weights_ms}, {"input", g.input_ms}, {"forward", g.forward_ms},
                              {"spectra", g.spectra_ms}, {"equivalence_background", g.equivalence_ms},
                              {"grid_replot", g.grid_replot_ms}, {"spectrum_replot", g.spectrum_replot_ms},
                              {"status_line", g.status_ms}, {"analysis_ready", g.analysis_ready_ms},
                              {"window_repaint", g.window_repaint_ms}};
        j["gui_longest_stall_ms"] = g.longest_stall_ms;
        j["gui_drag_update_ms"] = g.drag_update_ms;
        j["gui_drag_updates"] = g.drag_updates;
        j["gui_paced_drag_update_ms"] = g.paced_drag_update_ms;
        j["gui_paced_drag_updates"] = g.paced_drag_updates;
        j["gui_first_paint_ms"] = g.first_paint_ms;
        j["gui_frame_ms"] = g.frame_ms;
        j["gui_frame_same_weights_ms"] = g.same_weights_frame_ms;
        if (training_gui)
            j["training_gui"] = {{"seconds", training_gui->seconds}, {"longest_stall_ms", training_gui->longest_stall_ms},
                                 {"median_heartbeat_ms", training_gui->median_stall_ms},
                                 {"frames", training_gui->frames}, {"steps", training_gui->steps}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("\nGUI update, config change -> all views repainted (offscreen, d_model 768, 12 heads, 16 tokens),\n"
                "median of %d: new seed (weights and spectra recomputed) %.2f ms; new temperature (weights\n"
                "reused) %.2f ms\n", g.runs, g.median_ms, g.same_weights_median_ms);
    std::printf("new seed: the heatmaps are drawn after %.2f ms, while the spectra are computed\n"
                "the frame as the app paints it (dirty widgets only): new seed %.2f ms, new temperature "
                "%.2f ms\n", g.first_paint_ms, g.frame_ms, g.same_weights_frame_ms);
    std::printf("stages of a new seed (medians, ms): weights %.2f, input %.2f, forward %.2f, spectra %.2f "
                "(equivalence %.2f, in the background); head grid redraw %.2f, spectrum redraw %.2f, "
                "status line %.2f\nanalysis back on the GUI thread after %.2f ms; a whole-window repaint "
                "costs %.2f ms\nduring a 30-change drag (5 ms apart): longest GUI-thread stall %.1f ms; %d analyses "
                "shown, each %.2f ms after its change (median); changes 20 ms apart: %d shown, each %.2f ms\n",
                g.weights_ms, g.input_ms, g.forward_ms, g.spectra_ms, g.equivalence_ms, g.grid_replot_ms,
                g.spectrum_replot_ms, g.status_ms, g.analysis_ready_ms, g.window_repaint_ms, g.longest_stall_ms,
                g.drag_updates, g.drag_update_ms, g.paced_drag_updates, g.paced_drag_update_ms);
    if (training_gui)
        std::printf("\nTraining tab shown while the default model trains for %.0f s (offscreen, 1280 x 800): %lld steps, "
                    "%d frames drawn; longest GUI-thread stall %.1f ms (median heartbeat %.2f ms)\n",
                    training_gui->seconds, training_gui->steps, training_gui->frames, training_gui->longest_stall_ms,
                    training_gui->median_stall_ms);
    return 0;
}

int runModelWindowBench(const QString& directory, const QString& text, int runs, bool json) {
    const ui::ModelWindowBenchResult r = ui::benchmarkModelWindow(directory, text, runs);
    if (!r.error.isEmpty()) {
        std::fprintf(stderr, "headscope: --bench --model: %s\n", qPrintable(r.error));
        return 1;
    }
    if (json) {
        nlohmann::json j;
        j["model_window"] = {{"tokens", r.tokens}, {"layers", r.layers}, {"runs", r.runs},
                             {"open_first_picture_ms", r.open_first_picture_ms}, {"open_complete_ms", r.open_complete_ms},
                             {"text_first_picture_ms", r.text_first_picture_ms}, {"text_complete_ms", r.text_complete_ms},
                             {"layer_ms", r.layer_ms}, {"longest_stall_ms", r.longest_stall_ms}, {"open_peak_mib", r.open_peak_mib},
                             {"peak_mib", r.peak_mib}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("A model in the window (offscreen, 1400 x 900), %d tokens on %d layers; medians of %d:\n"
                "open: first heatmaps %.0f ms, every view %.0f ms\n"
                "a new text: first heatmaps %.0f ms, every view %.0f ms\n"
                "another layer: %.0f ms\n"
                "longest GUI-thread stall %.1f ms; peak memory %.0f MiB (%.0f MiB when opened)\n",
                r.tokens, r.layers, r.runs, r.open_first_picture_ms, r.open_complete_ms, r.text_first_picture_ms,
                r.text_complete_ms, r.layer_ms, r.longest_stall_ms, r.peak_mib, r.open_peak_mib);
    return 0;
}

}  // namespace headscope::app
