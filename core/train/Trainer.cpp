#include "train/Trainer.h"

#include <algorithm>
#include <stdexcept>

#include "Parallel.h"

namespace headscope::train {

namespace {

constexpr int kShards = 2;

TrainConfig validated(const TrainConfig& config) {
    config.validate();
    return config;
}

}  // namespace

Trainer::Trainer(const TrainConfig& config)
    : config_(validated(config)), layout_(config_), parameters_(initialParameters(config_, layout_)),
      adam_(layout_.size(), config_.learning_rate, 0.9, 0.999, 1e-8, config_.weight_decay), data_(config_, deriveSeed(config_.seed, "batches")),
      held_out_(RepeatData(config_, deriveSeed(config_.seed, "held-out")).next(config_.eval_sequences)),
      probe_(probeSequence(config_)), shards_(kShards), shard_gradients_(kShards) {
    evaluate();
}

void Trainer::setParameters(const Eigen::Ref<const Eigen::VectorXf>& parameters) {
    if (parameters.size() != layout_.size())
        throw std::invalid_argument("expected " + std::to_string(layout_.size()) + " parameters, got " +
                                    std::to_string(parameters.size()));
    parameters_ = parameters;
}

double Trainer::run(const Batch& batch, Eigen::VectorXf* gradient) {
    const int n = config_.context, sequences = batch.sequences;
    const int* ids = batch.ids.data();
    const int shards = std::min(kShards, sequences);
    double targets = 0;
    for (int length : batch.lengths) targets += length - 1;
    double losses[kShards] = {0, 0};
    parallelFor(shards, [&](int shard) {
        const int begin = sequences * shard / shards, end = sequences * (shard + 1) / shards;
        Activations& act = shards_[std::size_t(shard)];
        const int* shard_ids = ids + std::size_t(begin) * n;
        forwardPass(config_, layout_, parameters_.data(), shard_ids, end - begin, act);
        losses[shard] = crossEntropy(shard_ids, batch.lengths.data() + begin, targets, gradient != nullptr, act);
        if (gradient) {
            Eigen::VectorXf& g = shard_gradients_[std::size_t(shard)];
            g.setZero(layout_.size());
            backwardPass(config_, layout_, parameters_.data(), shard_ids, act, g.data());
        }
    }, shards > 1 && workerThreads() > 1);
    if (gradient) {
        *gradient = shard_gradients_[0];
        for (int shard = 1; shard < shards; ++shard) *gradient += shard_gradients_[std::size_t(shard)];
    }
    double loss = 0;
    for (int shard = 0; shard < shards; ++shard) loss += losses[shard];
    return loss;
}

double Trainer::lossAndGradient(const Batch& batch, Eigen::VectorXf& gradient) {
    bool fits = batch.n == config_.context && batch.sequences >= 1 &&
                batch.ids.size() == std::size_t(batch.sequences) * batch.n && batch.lengths.size() == std::size_t(batch.sequences);
    for (int length : batch.lengths) fits = fits && length >= 2 && length <= batch.n;
    for (int id : batch.ids) fits = fits && id >= 0 && id < config_.vocab;
    if (!fits) throw std::invalid_argument("the batch does not match the model (context " + std::to_string(config_.context) +
                                           ", vocabulary " + std::to_string(config_.vocab) + ")");
    return run(batch, &gradient);
}

double Trainer::step() {
    const Batch batch = data_.next(config_.batch);
    Eigen::VectorXf gradient;
    const double loss = run(batch, &gradient);
    if (config_.warmup_steps > 0)  // step t = steps() + 1 uses lr * min(1, t / warmup)
        adam_.setLearningRate(config_.learning_rate * std::min(1.0, double(adam_.steps() + 1) / config_.warmup_steps));
    adam_.step(parameters_, gradient);
    train_losses_.push_back(static_cast<float>(loss));
    loss_since_evaluation_ += loss;
    ++steps_since_evaluation_;
    if (adam_.steps() % config_.eval_every == 0) evaluate();
    return loss;
}

Eigen::MatrixXf Trainer::logits(const std::vector<int>& ids) {
    if (int(ids.size()) != config_.context)
        throw std::invalid_argument("expected " + std::to_string(config_.context) + " ids");
    for (int id : ids)
        if (id < 0 || id >= config_.vocab) throw std::invalid_argument("token id " + std::to_string(id) + " is outside the vocabulary");
    forwardPass(config_, layout_, parameters_.data(), ids.data(), 1, probe_pass_);
    return probe_pass_.logits_t.transpose();
}

void Trainer::evaluate() {
    Evaluation e;
    e.step = adam_.steps();
    e.train_loss = steps_since_evaluation_ ? loss_since_evaluation_ / steps_since_evaluation_ : 0;
    loss_since_evaluation_ = 0, steps_since_evaluation_ = 0;

    // The held-out set in chunks of the batch size, each chunk in shards.
    TokenStatistics stats;
    const int n = config_.context;
    for (int begin = 0; begin < held_out_.sequences; begin += config_.batch) {
        const int count = std::min(config_.batch, held_out_.sequences - begin);
        const int* ids = held_out_.ids.data() + std::size_t(begin) * n;
        const int shards = std::min(kShards, count);
        TokenStatistics shard_stats[kShards];
        parallelFor(shards, [&](int shard) {
            const int b0 = count * shard / shards, b1 = count * (shard + 1) / shards;
            Activations& act = shards_[std::size_t(shard)];
            forwardPass(config_, layout_, parameters_.data(), ids + std::size_t(b0) * n, b1 - b0, act);
            shard_stats[shard] = tokenStatistics(act.logits_t, ids + std::size_t(b0) * n, held_out_.lengths.data() + begin + b0,
                                                 held_out_.repeated_from.data() + begin + b0, b1 - b0, n);
        }, shards > 1 && workerThreads() > 1);
        for (int shard = 0; shard < shards; ++shard) stats += shard_stats[shard];
    }
    e.loss = stats.loss(), e.repeated_loss = stats.repeatedLoss(), e.repeated_accuracy = stats.repeatedAccuracy();

    forwardPass(config_, layout_, parameters_.data(), probe_.data(), 1, probe_pass_);
    AttentionSnapshot snapshot;
    snapshot.step = e.step;
    for (int l = 0; l < config_.layers; ++l)
        for (int j = 0; j < config_.heads; ++j) {
            snapshot.weights.push_back(probe_pass_.attention(l, 0, j));
            e.previous_token.push_back(previousTokenScore(snapshot.weights.back()));
            e.prefix_matching.push_back(prefixMatchingScore(snapshot.weights.back(), probe_));
        }
    evaluations_.push_back(std::move(e));
    snapshots_.push_back(std::move(snapshot));
    if (int(snapshots_.size()) > config_.max_snapshots) {
        // Thin to every other one, the first and the newest kept: spread over the whole run, bounded.
        std::vector<AttentionSnapshot> kept;
        for (std::size_t i = 0; i < snapshots_.size(); ++i)
            if (i % 2 == 0 || i + 1 == snapshots_.size()) kept.push_back(std::move(snapshots_[i]));
        snapshots_ = std::move(kept);
    }
}

}  // namespace headscope::train
