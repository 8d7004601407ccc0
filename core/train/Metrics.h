#pragma once
// What a training run measures (issue 23): next-token loss and accuracy on the repeated part of
// the sequences, and two scores per head read from its attention on a probe sequence:
//   previous-token score  = mean over queries i >= 1 of weights(i, i - 1)
//   prefix-matching score = mean over queries i whose token occurred before of the attention to
//                           the token after each earlier occurrence: sum_{j < i, t_j = t_i} weights(i, j + 1)
// (Olsson et al. 2022). A perfect previous-token head scores 1, and so does a perfect induction head.

#include <Eigen/Core>
#include <vector>

namespace headscope::train {

// weights (n queries, n keys) -> [0, 1]; 0 when n < 2.
double previousTokenScore(const Eigen::Ref<const Eigen::MatrixXf>& weights);

// weights (n queries, n keys), tokens (n) -> [0, 1]; 0 when no token repeats.
double prefixMatchingScore(const Eigen::Ref<const Eigen::MatrixXf>& weights, const std::vector<int>& tokens);

// Next-token statistics over sequences: position t predicts token t + 1, "repeated" where
// t >= the sequence's repeated_from; targets only where t + 1 < its length (Batch).
struct TokenStatistics {
    double loss_sum = 0, repeated_loss_sum = 0;
    long long targets = 0, repeated_targets = 0, repeated_correct = 0;

    double loss() const { return targets ? loss_sum / double(targets) : 0; }
    double repeatedLoss() const { return repeated_targets ? repeated_loss_sum / double(repeated_targets) : 0; }
    double repeatedAccuracy() const { return repeated_targets ? double(repeated_correct) / double(repeated_targets) : 0; }
    TokenStatistics& operator+=(const TokenStatistics& other);
};

// logits_t (vocab, sequences * n), ids (sequences, n), lengths and repeated_from (sequences). The arg-max counts
// as correct (ties to the lowest id).
TokenStatistics tokenStatistics(const Eigen::Ref<const Eigen::MatrixXf>& logits_t, const int* ids, const int* lengths, const int* repeated_from,
                                int sequences, int n);

}  // namespace headscope::train
