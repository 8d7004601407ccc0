#pragma once
// One row per head: the numerical ranks of its three low-rank products against the largest
// rank each can have. The rank table view, `spectra.csv` / `ranks.csv` and the lessons read it.
//   W_QK,i (d_model, d_model)  <= min(d_k, d_model)
//   W_OV,i (d_model, d_model)  <= min(d_v, d_model)
//   logits Q_i K_i^T (n_q, n_kv) <= min(d_k, n_q, n_kv): the low-rank bottleneck (Bhojanapalli
//   et al. 2020): with more tokens than d_k the logits' rank stops growing.

#include <string>
#include <vector>

#include "Analysis.h"

namespace headscope {

struct RankRow {
    int head = 0;
    int qk = 0, qk_bound = 0;
    int ov = 0, ov_bound = 0;
    int logits = 0, logits_bound = 0;
};

std::vector<RankRow> rankTable(const Analysis& analysis);

// "head,rank_qk,bound_qk,rank_ov,bound_ov,rank_logits,bound_logits\n0,8,8,..."
std::string rankTableCsv(const Analysis& analysis);

// "matrix,head,index,value\nqk,0,1,0.73..." : every index 1..d_model of W_QK,i and W_OV,i, the
// exact zeros past the factor width included; values printed with 17 significant digits.
std::string spectraCsv(const Analysis& analysis);

}  // namespace headscope
