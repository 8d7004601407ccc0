#include "RankTable.h"

#include <cstdio>

#include "Spectrum.h"

namespace headscope {

std::vector<RankRow> rankTable(const Analysis& a) {
    const int d = a.weights().dModel();
    std::vector<RankRow> rows;
    for (std::size_t i = 0; i < a.spectra.size(); ++i) {
        RankRow row;
        row.head = static_cast<int>(i);
        row.qk = a.spectra[i].qk.rank;
        row.qk_bound = rankBound(a.weights().d_k, d, d);
        row.ov = a.spectra[i].ov.rank;
        row.ov_bound = rankBound(a.weights().d_v, d, d);
        row.logits = i < a.logits.size() ? a.logits[i].rank : 0;
        row.logits_bound = rankBound(a.weights().d_k, a.nQuery(), a.nKeyValue());
        rows.push_back(row);
    }
    return rows;
}

std::string rankTableCsv(const Analysis& a) {
    std::string csv = "head,rank_qk,bound_qk,rank_ov,bound_ov,rank_logits,bound_logits\n";
    for (const RankRow& r : rankTable(a)) {
        csv += std::to_string(r.head) + ',' + std::to_string(r.qk) + ',' + std::to_string(r.qk_bound) + ',' +
               std::to_string(r.ov) + ',' + std::to_string(r.ov_bound) + ',' + std::to_string(r.logits) + ',' +
               std::to_string(r.logits_bound) + '\n';
    }
    return csv;
}

std::string spectraCsv(const Analysis& a) {
    const int d = a.weights().dModel();
    std::string csv = "matrix,head,index,value\n";
    char value[32];
    for (const char* matrix : {"qk", "ov"}) {
        for (std::size_t h = 0; h < a.spectra.size(); ++h) {
            const Spectrum& s = matrix[0] == 'q' ? a.spectra[h].qk : a.spectra[h].ov;
            const Eigen::VectorXd all = allSingularValues(s, d, d);
            for (Eigen::Index i = 0; i < all.size(); ++i) {
                std::snprintf(value, sizeof value, "%.17g", all(i));
                csv += std::string(matrix) + ',' + std::to_string(h) + ',' + std::to_string(i + 1) + ',' + value + '\n';
            }
        }
    }
    return csv;
}

}  // namespace headscope
