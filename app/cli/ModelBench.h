#pragma once
// The model figures of `headscope-cli bench` (issue 22): checkpoints of real geometries with random
// weights, written to a temporary folder (removed after), opened by whole headscope-cli processes
// (fork/exec) timed by wall clock, with the peak memory wait4's rusage reports.
// Each of BenchCheckpoints.h's checkpoints:
//   gpt2_small       `model DIR --ids 464`, wall time and peak memory against the file.
//   llama_1b         the first picture of a layer (a process that opens the folder and computes layer 0's
//                    attention), and a 64-token forward of every layer against its GEMM floor (the same
//                    products on float weights already converted), timed inside one process: after one
//                    warm-up forward, three forwards and three floor passes in turn (medians).
//   qwen3_0.6b       the 64-token forward against its floor.
//   gemma3_1b        the 64-token forward, and a 2,048-token one holding one layer's maps at a time, each
//                    against its floor, with peak memory.
//   bert_base        open + layer 0's attention as a process, and a 128-token forward against its floor.
//   modernbert_base  the same, on 512 tokens.
// The floor counts each head's scores and mixing over the whole square as well, and an encoder's
// logits at every position.
// --quick writes small geometries of the same shapes instead (the figures mean little).

#include <string>
#include <vector>

namespace headscope::cli {

struct ModelBenchCase {
    std::string name, dtype;
    int layers = 0, d_model = 0, heads = 0, kv_heads = 0, vocab = 0;
    double file_mib = 0;
    int runs = 0;
    // gpt2: `model --ids 464`; llama: opening + layer 0's attention. Medians of whole processes.
    double process_s = 0, process_peak_mib = 0;
    // llama only, inside one process: the 64-token forward (median), the floor, the peak memory of
    // the forward (before the floor's own matrices), the conversion of every layer's weights.
    double forward_s = 0, floor_s = 0, forward_peak_mib = 0, open_s = 0;
    int forward_tokens = 64;  // the forward's input length (encoders: 128, 512)
    // gemma3_1b only: a forward of `long_tokens` (2,048) with each layer's maps dropped with it.
    int long_tokens = 0;
    double long_forward_s = 0, long_floor_s = 0, long_peak_mib = 0;
};

// cache_layers: --cache-layers of the timed processes (ModelCacheOption.h).
std::vector<ModelBenchCase> measureModels(bool quick, int runs, int cache_layers);

// Peak resident memory of this process so far, in MiB (VmHWM of /proc/self/status; 0 if unknown).
double peakMemoryMiB();

// `bench --model-child MODE --model-dir DIR`: what the timed processes run (first-layer, forward[:tokens] or forward-long).
int modelBenchChild(const std::string& mode, const std::string& directory, int cache_layers);

}  // namespace headscope::cli
