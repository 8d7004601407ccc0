#pragma once
// Knocking heads out of one attention layer that is not part of a language model (weights
// generated from the config, or a loaded nn.MultiheadAttention layer): there is no next token
// to lose, so what changes is the layer's output itself. The heads' patterns stay; their
// outputs out_i (n, d_v) are replaced as in Ablation.h (zero: 0; mean: every row the head's
// mean row over the n positions), and
//   output' = concat' W_O + b_O = sum_{i kept} out_i W_O,i + sum_{i off} out_i' W_O,i + b_O   (n, d_model)
// with W_O,i = W_O's rows i*d_v .. (i+1)*d_v - 1 (d_v, d_model). Zero mode: output' is the kept
// heads' outputs through W_O plus b_O. The other heads' outputs are not touched.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "Engine.h"
#include "Weights.h"
#include "model/Ablation.h"

namespace headscope::model {

struct LayerAblation {
    std::vector<int> heads;             // the heads off, sorted
    AblationMode mode = AblationMode::Zero;
    Eigen::MatrixXf before, after;      // the layer's output (n, d_model) intact and with the heads off
    Eigen::VectorXd change;             // (n) || after_p - before_p ||_2 for each query position p
    Eigen::VectorXd before_norm;        // (n) || before_p ||_2, the scale the change is read against
    double max_change = 0;              // max_p change(p)
    double relative_change = 0;         // || after - before ||_F / || before ||_F (0 when before is 0)
    double other_heads_max_difference = 0;  // max |out_i' - out_i| over the kept heads: 0 by construction
};

// heads: head indices of this layer (each in 0 .. weights.heads - 1, else std::invalid_argument
// in one sentence); intact: forward()'s results for these weights. An empty list changes nothing.
LayerAblation ablateAttentionLayer(const std::vector<int>& heads, AblationMode mode, const Weights& weights,
                                   const Results& intact);

// The heads of a single layer from an Ablation (its layer-0 heads).
std::vector<int> layerHeads(const Ablation& ablation);

// "0,2" -> {0, 2} (spaces allowed); std::invalid_argument naming a part that is not a head number.
// "L.H" with L = 0 is accepted too, since a single layer is layer 0.
std::vector<int> parseLayerHeadList(const std::string& text);

}  // namespace headscope::model
