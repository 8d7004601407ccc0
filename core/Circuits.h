#pragma once
// The two d_model x d_model maps a head is made of (Elhage et al. 2021, "A Mathematical
// Framework for Transformer Circuits"):
//   W_QK,i = W_i^Q (W_g^K)^T   (d_model, d_model), rank <= min(d_k, d_model): x_q^T W_QK,i x_k is the score
//   W_OV,i = W_g^V W_i^O       (d_model, d_model), rank <= min(d_v, d_model): what an attended token writes
// with g = i / (h / kv) the key/value head query head i reads. Formed explicitly, so they cost
// d_model^2 (d_k + d_v) multiply-adds a head: compute them for the head being looked at, off
// the GUI thread.

#include <Eigen/Core>

#include "Spectrum.h"
#include "Weights.h"

namespace headscope {

// Circuits of larger layers are not formed for the window (2 x 1024^2 floats = 8 MiB, drawn in
// about 20 ms); the command line's export writes them at any size.
constexpr int kMaxWindowCircuitDModel = 1024;

struct Circuits {
    int head = 0;
    Eigen::MatrixXf W_QK;  // (d_model, d_model)
    Eigen::MatrixXf W_OV;  // (d_model, d_model)
};

// W_OV,i = W_g^V W_i^O (d_model, d_model).
Eigen::MatrixXf mergedOV(const Weights& weights, int head);

// Both circuits of one head; head must be in [0, heads).
Circuits headCircuits(const Weights& weights, int head);

}  // namespace headscope
