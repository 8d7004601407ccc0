#pragma once
// RoPE made computable (issue 22, item 4; pure functions, no UI). With rotary positions the
// score of query i and key j in head i_h (key/value head g) is
//   q_i . k_j = qt_i R(i) R(j)^T kt_j^T = qt_i M(Delta) kt_j^T,   Delta = j - i,
// qt, kt the unrotated projections (biases added), R(t) the rotation forward() applies at
// position t (Engine.h Rotary) and M(Delta) = R(i) R(j)^T = R(-Delta), orthogonal. Hence
//   W_QK,i(Delta) = W_i^Q M(Delta) (W_g^K)^T   (d_model, d_model), rank <= d_k at every Delta,
// and W_QK,i(0) = W_i^Q (W_g^K)^T. Each rotary pair p (dims p and p + m of a head, frequency
// theta_p) adds
//   c_p = (a_q a_k + b_q b_k) cos(theta_p Delta) + (b_q a_k - a_q b_k) sin(theta_p Delta)
// to q_i . k_j, where (a, b) are the pair's unrotated coordinates; the dims past 2m (partial
// rotary) add their plain product. The contributions sum to q_i . k_j.

#include <Eigen/Core>
#include <vector>

#include "Analysis.h"
#include "Engine.h"
#include "Spectrum.h"
#include "Weights.h"

namespace headscope {

// M(Delta) (d_k, d_k): rows turned as forward() turns them; identity on the unrotated dims.
Eigen::MatrixXd relativeRotation(const Rotary& rotary, int d_k, int delta);

// W_QK,i(Delta) as thin factors A (d_model, d_k) = W_i^Q, B (d_model, d_k) = W_g^K M(Delta)^T,
// so that W_QK,i(Delta) = A B^T.
struct ThinFactors {
    Eigen::MatrixXd A, B;
};
ThinFactors rotatedQueryKey(const Weights& weights, int head, const Rotary& rotary, int delta);
// Its singular values and rank (core's productSpectrum on the thin factors).
Spectrum rotatedQueryKeySpectrum(const Weights& weights, int head, const Rotary& rotary, int delta, double rank_rtol = 0);

struct RotaryPair {
    double frequency = 0;     // theta_p, radians per position
    double angle = 0;         // theta_p * Delta
    double contribution = 0;  // c_p
};
struct PairSplit {
    std::vector<RotaryPair> pairs;  // p = 0 .. m-1, high frequency first (theta_0 = 1 / base^0 is the highest)
    double unrotated = 0;           // dims 2m .. d_k-1 (partial rotary)
    double total = 0;               // sum of the pairs and the unrotated part: q_i . k_j
};
// q, k (d_k) unrotated (biases added); Delta = j - i.
PairSplit splitByRotaryPair(const Rotary& rotary, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& k, int delta);

// How much of W_i^Q (W_g^K)^T lives in each frequency pair: W_QK,i = sum_p W_QK,i^(p) + the
// unrotated part, W_QK,i^(p) = W_i^Q[:, {p, p+m}] (W_g^K[:, {p, p+m}])^T; the share of pair p is
// ||W_QK,i^(p)||_F^2 over the sum of every part's squared norm. Returns m shares (high
// frequency first) and, last, the unrotated part's share; they sum to 1 (all 0 for zero weights).
std::vector<double> pairShares(const Weights& weights, int head, const Rotary& rotary);

// Delta = key position - query position of cell (row, col): the rotary positions when given,
// else the indices.
int cellDelta(const Rotary& rotary, int row, int col);

// Every head's W_QK,i(Delta) spectrum and, when form_product, the selected head's W_QK,i(Delta)
// (d_model, d_model) formed: what the Circuits view and the spectra show at one Delta. Costs
// h thin SVDs plus d_model^2 d_k for the product: compute it off the GUI thread.
struct RotatedCircuits {
    int delta = 0;
    int head = 0;
    std::vector<Spectrum> qk;  // per head
    Eigen::MatrixXf W_QK;      // (d_model, d_model) of `head`; empty unless form_product
};
RotatedCircuits rotatedCircuits(const Weights& weights, const Rotary& rotary, int head, int delta, double rank_rtol,
                                bool form_product);

// The logit of one cell against Delta with its content fixed: q, k (d_k) are the rotated q_i,
// k_j the softmax saw at positions query_position, key_position; unrotated, they give
//   logit(Delta) = factor * qt_i M(Delta) kt_j^T    for Delta = min_delta .. max_delta,
// which at Delta = key_position - query_position is the engine's logit (float rounding).
struct LogitCurve {
    std::vector<int> deltas;
    std::vector<double> logits;
};
LogitCurve logitAgainstDelta(const Rotary& rotary, const Eigen::Ref<const Eigen::VectorXf>& q,
                             const Eigen::Ref<const Eigen::VectorXf>& k, int query_position, int key_position,
                             double factor, int min_delta, int max_delta);

// What the RoPE tab draws for cell (row, col) of head: its logit against every Delta of the
// input, from the rotated q_i (the head's columns of Results::Q) and k_j (its key/value head's
// columns of Results::K), with the layer's scale and temperature. deltas run from the smallest
// to the largest key position minus query position (the cell's own Delta included), and
// curve.logits[cell_delta - deltas.front()] is the engine's logit up to float rounding. Costs
// O(n_delta d_k): small, but computed off the GUI thread with the rest. Throws
// std::invalid_argument / std::out_of_range for a layer without rotary positions or a cell
// or head it does not have.
struct CellLogitCurve {
    int head = 0, row = 0, col = 0;
    int cell_delta = 0;       // key position - query position of the cell
    double engine_logit = 0;  // Results' logit of the cell (-inf where masked)
    LogitCurve curve;
};
CellLogitCurve cellLogitCurve(const Analysis& analysis, int head, int row, int col);

}  // namespace headscope
