#include "cli/PauseBench.h"

#include <chrono>
#include <thread>
#include <vector>

#include "Analysis.h"
#include "Strings.h"

namespace headscope::cli {

PauseFigures measureAfterPause(int d_model, int heads, int tokens, int runs, int pause_ms) {
    PauseFigures f{d_model, heads, tokens, pause_ms, runs};
    Config config;
    config.d_model = d_model;
    config.heads = heads;
    config.text.clear();
    config.seq_len = tokens;
    std::uint64_t seed = 7000;
    using Clock = std::chrono::steady_clock;
    // A new seed each time: new weights, as a click on the seed or a drag of it gives.
    const auto change = [&](std::vector<double>& total, std::vector<double>& weights) {
        config.seed = ++seed;
        const auto t0 = Clock::now();
        const Analysis a = analyze(config, /*with_equivalence=*/false);
        total.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        weights.push_back(a.weights_ms);
    };
    std::vector<double> paused, paused_weights, hot, hot_weights, warm_up;
    change(warm_up, warm_up);  // thread pools started, code paged in
    for (int run = 0; run < runs; ++run) {
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
        change(paused, paused_weights);
        change(hot, hot_weights);  // right after: what the pause left cold is warm again
    }
    f.back_to_back_ms = median(hot), f.back_to_back_weights_ms = median(hot_weights);
    f.after_pause_ms = median(paused), f.after_pause_weights_ms = median(paused_weights);
    return f;
}

}  // namespace headscope::cli
