#pragma once
// Every matrix of an Analysis as files named for what they are:
//   X (n_q, d_model), X_kv (n_kv, d_model) for cross-attention, W_Q, W_K, W_V, W_O,
//   b_Q, b_K, b_V, b_O (when the layer has biases), Q (n_q, h d_k), K (n_kv, kv d_k),
//   V (n_kv, kv d_v), output (n_q, d_model), head_<i>_logits (n_q, n_kv), head_<i>_weights
//   (n_q, n_kv), head_<i>_W_QK and head_<i>_W_OV (d_model, d_model),
//   spectra.csv (matrix, head, index, value) and ranks.csv (the rank table), whatever the formats,
//   tokens.txt / source_tokens.txt (one token per line).

#include <string>
#include <vector>

#include "Analysis.h"

namespace headscope::io {

enum class MatrixFormat { Csv, Npy };

// Writes into dir (created if missing); returns the paths written. Throws IoError.
std::vector<std::string> exportMatrices(const Analysis& analysis, const std::string& dir,
                                        const std::vector<MatrixFormat>& formats);

}  // namespace headscope::io
