#pragma once
// A training run of the small transformer on the repeated-sequence task (issue 23): Adam steps
// on fresh batches, and every eval_every steps an Evaluation (losses, accuracy on the repeated
// part of a fixed held-out set, each head's previous-token and prefix-matching scores on the
// probe) and an AttentionSnapshot of every head on the probe. Deterministic for a seed, whatever
// the number of cores: a batch is always cut into the same two shards, run on two threads when
// the machine has them, and their gradients are added in a fixed order.
// Not thread-safe: one thread drives a Trainer (the GUI's worker copies out what it shows).

#include <Eigen/Core>
#include <vector>

#include "train/Metrics.h"
#include "train/Parameters.h"
#include "train/RepeatData.h"
#include "train/TrainConfig.h"
#include "train/Transformer.h"

namespace headscope::train {

struct Evaluation {
    long long step = 0;
    double train_loss = 0;         // mean training-batch loss since the previous evaluation (step 0: the first batch's)
    double loss = 0;               // held-out set, every target
    double repeated_loss = 0;      // held-out set, the repeated part
    double repeated_accuracy = 0;  // held-out set, the repeated part, arg-max
    std::vector<double> previous_token;  // layer * heads + head, on the probe
    std::vector<double> prefix_matching; // layer * heads + head, on the probe
};

struct AttentionSnapshot {
    long long step = 0;
    std::vector<Eigen::MatrixXf> weights;  // layer * heads + head: (n queries, n keys) on the probe
};

class Trainer {
public:
    // std::invalid_argument (one sentence) for settings that cannot train. Evaluates step 0.
    explicit Trainer(const TrainConfig& config);

    const TrainConfig& config() const { return config_; }
    const ParameterLayout& layout() const { return layout_; }
    const Eigen::VectorXf& parameters() const { return parameters_; }
    void setParameters(const Eigen::Ref<const Eigen::VectorXf>& parameters);  // size checked
    long long steps() const { return adam_.steps(); }

    // One Adam step on the next batch; evaluates when the step count reaches a multiple of
    // eval_every. Returns the batch's mean loss.
    double step();

    // Mean loss of a batch and its gradient (layout().size()), without updating anything.
    double lossAndGradient(const Batch& batch, Eigen::VectorXf& gradient);
    // Logits (n, vocab) of one sequence of n = context ids.
    Eigen::MatrixXf logits(const std::vector<int>& ids);

    const std::vector<Evaluation>& evaluations() const { return evaluations_; }
    const std::vector<AttentionSnapshot>& snapshots() const { return snapshots_; }
    const std::vector<int>& probe() const { return probe_; }
    const std::vector<float>& trainLosses() const { return train_losses_; }  // one per step

private:
    void evaluate();
    // Forward (and with gradient, backward) over the batch in shards; returns the mean loss.
    double run(const Batch& batch, Eigen::VectorXf* gradient);

    TrainConfig config_;
    ParameterLayout layout_;
    Eigen::VectorXf parameters_;
    Adam adam_;
    RepeatData data_;
    Batch held_out_;
    std::vector<int> probe_;
    std::vector<Activations> shards_;
    std::vector<Eigen::VectorXf> shard_gradients_;
    Activations probe_pass_;
    std::vector<Evaluation> evaluations_;
    std::vector<AttentionSnapshot> snapshots_;
    std::vector<float> train_losses_;
    double loss_since_evaluation_ = 0;
    int steps_since_evaluation_ = 0;
};

}  // namespace headscope::train
