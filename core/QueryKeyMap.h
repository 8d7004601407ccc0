#pragma once
// The joint query-key map of one head (AttentionViz, Yeh et al., IEEE VIS 2023): the head's
// n_q query vectors and n_kv key vectors, each multiplied by sqrt(scale / T) so that the dot
// product of a query point and a key point (in d_k) IS the logit, stacked, centred and
// projected onto their first two principal components:
//   P = [q_0; ...; q_{n_q-1}; k_0; ...; k_{n_kv-1}] * sqrt(scale / T)   (n_q + n_kv, d_k)
//   P_c = P - mean(P)  ->  P_c = U S V^T,  coordinates = P_c V[:, 0:2]      (n_q + n_kv, 2)
//   explained_k = S_k^2 / sum_j S_j^2
// Computed in double from the eigendecomposition of the smaller Gram matrix
// (P_c^T P_c (d_k, d_k) or P_c P_c^T (n, n)). Each principal axis has its sign fixed so that
// its largest-magnitude entry is positive.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "Analysis.h"

namespace headscope {

struct QueryKeyMap {
    int head = 0, kv_head = 0, d_k = 0;
    double factor = 1;                 // scale / T; the vectors were multiplied by sqrt(factor)
    Eigen::MatrixXd query_points;      // (n_q, 2): first and second principal coordinate
    Eigen::MatrixXd key_points;        // (n_kv, 2)
    Eigen::Vector2d explained{0, 0};   // share of the total variance along each component
    double explained_total = 0;        // explained(0) + explained(1), in [0, 1]
    std::vector<int> most_attended;    // (n_q) the key each query gives the largest weight; -1: row fully masked
    std::vector<std::string> query_tokens, key_tokens;
};

// The key query `row` of head gives the largest softmax weight (the engine's), among the keys it
// may attend to; -1 when all are masked. Ties: the first.
int mostAttendedKey(const Analysis& analysis, int head, int row);

// The map of head (in [0, heads), else std::out_of_range).
QueryKeyMap queryKeyMap(const Analysis& analysis, int head);

}  // namespace headscope
