#pragma once
// What `model --out DIR` will write, counted before it writes anything (the 2 GiB guard), file by
// file, each at most:
//   attention_layer_<L>.npy      (heads, n, n)
//   layer_<L>/ in each csv/npy format: X, W_Q, W_K, W_V, W_O, the biases, Q, K, V, output, and per
//   head logits, weights (n, n), W_QK, W_OV (d_model, d_model) and, with --delta,
//   head_<i>_W_QK_delta_<N> (d_model, d_model); spectra.csv, ranks.csv, tokens.txt.
// A value takes 4 bytes in .npy (after a header of at most kNpyHeaderBytes) and at most 16 in .csv
// ("%.9g" is at most 15 characters, plus its separator). Images (png, svg, pdf) are pictures of a
// fixed size whatever d_model is and are not counted.

#include <vector>

#include "io/MatrixExport.h"
#include "model/Model.h"

namespace headscope::cli {

constexpr double kMaxModelOutputBytes = 2.0 * 1024 * 1024 * 1024;
constexpr double kNpyHeaderBytes = 256;  // NumPy pads its header to 64 bytes; ours are 128 for these shapes
constexpr double kCsvValueBytes = 16;
constexpr double kSpectraLineBytes = 48;  // "qk,<head>,<index>,<%.17g>\n"

// Bytes (at most) of every file `model --out` writes for one layer of `c` on n tokens.
inline double modelOutputLayerBytes(const model::ModelConfig& c, int n, bool bias,
                                    const std::vector<io::MatrixFormat>& formats, bool delta) {
    const double d = c.n_embd, h = c.n_head, kv = c.kvHeads(), dk = c.headDim(), t = n;
    double bytes = kNpyHeaderBytes + 4.0 * h * t * t;  // attention_layer_<L>.npy
    if (formats.empty()) return bytes;
    // Every matrix exportMatrices and writeRotatedQK write, in values.
    std::vector<double> matrices = {t * d, d * h * dk, d * kv * dk, d * kv * dk, h * dk * d,  // X, W_Q, W_K, W_V, W_O
                                    t * h * dk, t * kv * dk, t * kv * dk, t * d};            // Q, K, V, output
    if (bias) matrices.insert(matrices.end(), {h * dk, kv * dk, kv * dk, d});
    for (int i = 0; i < c.n_head; ++i) {
        matrices.insert(matrices.end(), {t * t, t * t, d * d, d * d});  // logits, weights, W_QK, W_OV
        if (delta) matrices.push_back(d * d);                          // W_QK(Delta)
    }
    for (io::MatrixFormat f : formats)
        for (double values : matrices)
            bytes += f == io::MatrixFormat::Npy ? kNpyHeaderBytes + 4.0 * values : kCsvValueBytes * values;
    // spectra.csv (every singular value of W_QK and W_OV per head), ranks.csv and tokens.txt.
    bytes += kSpectraLineBytes * (2 * h * d + 1) + 64 * (h + 2) + 256 * t;
    return bytes;
}

}  // namespace headscope::cli
