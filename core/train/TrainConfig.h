#pragma once
// The settings of a training run of the small GPT-2-shaped transformer in core/train/ (issue 23):
// the model's shape, the repeated-sequence task and the optimiser. Defaults are the issue's:
// 2 attention-only layers, d_model 32, 2 heads a layer, 64 tokens, Adam at batch 32, lr 3e-3
// (warmed up over the first 200 steps);
// the task is the one ../shared/models/induction was trained on (strings of 6 to 20 random
// tokens repeated to fill a context of 64), where a previous-token head and an induction head form.

#include <cstdint>
#include <string>

namespace headscope::train {

struct TrainConfig {
    // The model
    int layers = 2;            // 1 to 4
    int d_model = 32;
    int heads = 2;             // per layer; d_model must be divisible by it
    int vocab = 64;            // tokens, at most kMaxVocab (printable single characters when saved)
    int context = 64;          // tokens per sequence (n_positions when saved)
    bool mlp = false;          // attention-only unless set (GELU tanh MLP of width 4 d_model)
    bool tied_embeddings = false;  // unembedding = wte^T when set, else its own lm_head
    // The task (RepeatData.h): a string of L random tokens repeated to fill the context (or, with
    // two_copies, L distinct tokens written twice), L drawn uniformly from [min_repeat, max_repeat]
    // per sequence (equal: a fixed length).
    int min_repeat = 6;
    int max_repeat = 20;
    bool random_start = false;  // the two copies after a random filler, not from position 0
    bool two_copies = false;    // L distinct tokens written twice; else L random tokens repeated to fill the context
    // The optimiser: torch.optim.Adam (betas 0.9, 0.999, eps 1e-8); with weight_decay > 0
    // torch.optim.AdamW's decoupled decay (p *= 1 - lr * weight_decay before the step, on every
    // tensor), and with warmup_steps > 0 the learning rate ramped linearly over the first steps
    // (step t uses lr * min(1, t / warmup_steps)).
    double learning_rate = 3e-3;
    double weight_decay = 0;
    // 200: with it all of seeds 1-8 form a layer-1 induction head and 7 of 8 a layer-0
    // previous-token head (without: 6 and 5 of 8), 90 % still at step 350 (README, Training).
    int warmup_steps = 200;
    double init_std = 0.02;    // GPT-2's weight init N(0, init_std); residual projections / sqrt(2 layers)
    int batch = 32;            // sequences per step
    std::uint64_t seed = 1;    // weights, batches, evaluation set and probe all follow from it
    // Evaluation
    int eval_every = 50;       // steps between evaluations (and attention snapshots)
    int eval_sequences = 128;  // fixed held-out sequences the losses and accuracy are measured on
    int max_snapshots = 128;   // attention snapshots kept; older ones are thinned, never unbounded

    static constexpr int kMaxLayers = 4;
    static constexpr int kMaxVocab = 94;  // printable ASCII without the space
    static constexpr int kMaxContext = 512;
    static constexpr int kMaxDModel = 512;

    int headDim() const { return heads > 0 ? d_model / heads : 0; }
    int mlpWidth() const { return 4 * d_model; }
    // Multiply-adds of one training step's matrix products over a batch of batch * context rows:
    // the forward's (per layer QKV, Q K^T, W V, W_O and the MLP's two, then the unembedding) and
    // twice as many backward (each product's two gradients). Elementwise work is not counted.
    double stepMultiplyAdds() const;
    // The first problem in one sentence, or empty when the settings can train.
    std::string problem() const;
    // std::invalid_argument with problem() unless it is empty.
    void validate() const;
};

}  // namespace headscope::train
