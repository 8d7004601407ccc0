#include "train/Metrics.h"

#include <cmath>

namespace headscope::train {

double previousTokenScore(const Eigen::Ref<const Eigen::MatrixXf>& weights) {
    const Eigen::Index n = weights.rows();
    if (n < 2) return 0;
    double sum = 0;
    for (Eigen::Index i = 1; i < n; ++i) sum += weights(i, i - 1);
    return sum / double(n - 1);
}

double prefixMatchingScore(const Eigen::Ref<const Eigen::MatrixXf>& weights, const std::vector<int>& tokens) {
    const Eigen::Index n = std::min<Eigen::Index>(weights.rows(), Eigen::Index(tokens.size()));
    double sum = 0;
    long long queries = 0;
    for (Eigen::Index i = 1; i < n; ++i) {
        double attention = 0;
        bool seen = false;
        for (Eigen::Index j = 0; j < i; ++j)
            if (tokens[std::size_t(j)] == tokens[std::size_t(i)]) {
                attention += weights(i, j + 1);  // j + 1 <= i: a key the query may see
                seen = true;
            }
        if (seen) sum += attention, ++queries;
    }
    return queries ? sum / double(queries) : 0;
}

TokenStatistics& TokenStatistics::operator+=(const TokenStatistics& o) {
    loss_sum += o.loss_sum, repeated_loss_sum += o.repeated_loss_sum;
    targets += o.targets, repeated_targets += o.repeated_targets, repeated_correct += o.repeated_correct;
    return *this;
}

TokenStatistics tokenStatistics(const Eigen::Ref<const Eigen::MatrixXf>& logits_t, const int* ids, const int* lengths, const int* repeated_from,
                                int sequences, int n) {
    TokenStatistics stats;
    for (int s = 0; s < sequences; ++s)
        for (int t = 0; t + 1 < lengths[s]; ++t) {
            const Eigen::Index r = Eigen::Index(s) * n + t;
            const auto logits = logits_t.col(r);  // (vocab)
            Eigen::Index best = 0;
            const float top = logits.maxCoeff(&best);
            const double loss = std::log((logits.array() - top).exp().cast<double>().sum()) + top - logits(ids[r + 1]);
            stats.loss_sum += loss, ++stats.targets;
            if (t >= repeated_from[s]) {
                stats.repeated_loss_sum += loss, ++stats.repeated_targets;
                if (best == ids[r + 1]) ++stats.repeated_correct;
            }
        }
    return stats;
}

}  // namespace headscope::train
