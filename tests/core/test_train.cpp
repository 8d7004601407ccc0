// core/train: the hand-written backward pass against PyTorch's autograd on every parameter
// (tests/data/make_train_reference.py), Adam against torch.optim.Adam, central finite
// differences, the repeated-sequence data, the head scores on hand-made attention, determinism,
// and a short run that lowers the loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "io/Npy.h"
#include "io/Safetensors.h"
#include "train/Trainer.h"

namespace fs = std::filesystem;
using namespace headscope;
using namespace headscope::train;

namespace {

const fs::path kData = fs::path(HEADSCOPE_TEST_DATA_DIR) / "train";

nlohmann::json readJson(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// The reference case's model as a TrainConfig (the task settings only need to validate).
TrainConfig caseConfig(const nlohmann::json& j) {
    TrainConfig c;
    c.layers = j["layers"], c.d_model = j["d_model"], c.heads = j["heads"], c.vocab = j["vocab"];
    c.context = j["context"], c.mlp = j["mlp"], c.tied_embeddings = j["tied"];
    c.min_repeat = 2, c.max_repeat = 3, c.batch = 3, c.eval_sequences = 2;
    return c;
}

Batch caseBatch(const nlohmann::json& j) {
    Batch b;
    b.sequences = int(j["ids"].size());
    b.n = int(j["context"]);
    for (const auto& row : j["ids"])
        for (int id : row) b.ids.push_back(id);
    b.repeat.assign(std::size_t(b.sequences), b.n);
    b.repeated_from.assign(std::size_t(b.sequences), b.n);
    b.lengths.assign(std::size_t(b.sequences), b.n);  // every position counts, as in the reference
    return b;
}

class ReferenceCase : public ::testing::TestWithParam<const char*> {};

// Relative tolerance of a gradient: max |ours - autograd| over a tensor, divided by the tensor's
// largest |autograd| value. The reference is float64; ours float32 through two layers.
constexpr double kGradientRtol = 2e-5;

TEST_P(ReferenceCase, LossLogitsAndEveryGradientMatchAutograd) {
    const fs::path folder = kData / GetParam();
    const nlohmann::json j = readJson(folder / "case.json");
    Trainer trainer(caseConfig(j));
    trainer.setParameters(parametersFromTensors(trainer.layout(), io::readSafetensors((folder / "weights.safetensors").string())));
    const Batch batch = caseBatch(j);

    Eigen::VectorXf gradient;
    const double loss = trainer.lossAndGradient(batch, gradient);
    EXPECT_NEAR(loss, double(j["loss"]), 1e-5 * double(j["loss"]));

    // Logits of each sequence against autograd's forward: (n, vocab) rows of the (S n, vocab) file.
    const Eigen::MatrixXf expected_logits = io::toMatrix(io::readNpy((folder / "logits.npy").string()));
    double worst_logit = 0;
    for (int s = 0; s < batch.sequences; ++s) {
        const std::vector<int> ids(batch.ids.begin() + s * batch.n, batch.ids.begin() + (s + 1) * batch.n);
        worst_logit = std::max<double>(worst_logit,
                                       (trainer.logits(ids) - expected_logits.middleRows(s * batch.n, batch.n)).cwiseAbs().maxCoeff());
    }
    std::printf("%s: max |logit difference| %.3g\n", GetParam(), worst_logit);
    EXPECT_LT(worst_logit, 1e-5);

    const auto expected = io::readSafetensors((folder / "gradients.safetensors").string());
    int checked = 0;
    for (const ParameterInfo& info : trainer.layout().entries()) {
        ASSERT_TRUE(expected.count(info.name)) << info.name;
        const io::Tensor& t = expected.at(info.name);
        ASSERT_EQ(t.shape, info.shape) << info.name;
        Eigen::MatrixXf reference(info.rows, info.cols);
        if (info.shape.size() == 1)
            reference = Eigen::Map<const Eigen::RowVectorXf>(t.data.data(), info.cols);
        else
            reference = io::toMatrix(t);
        const Eigen::Map<const Eigen::MatrixXf> ours(gradient.data() + info.offset, info.rows, info.cols);
        const double scale = reference.cwiseAbs().maxCoeff();
        const double difference = (ours - reference).cwiseAbs().maxCoeff();
        std::printf("  %-26s max |ours - autograd| %.3g, relative %.3g\n", info.name.c_str(), difference,
                    scale > 0 ? difference / scale : 0.0);
        EXPECT_GT(scale, 0) << info.name << ": the reference should give every tensor a gradient";
        EXPECT_LE(difference, kGradientRtol * scale) << info.name;
        ++checked;
    }
    EXPECT_EQ(checked, int(expected.size()));
}

INSTANTIATE_TEST_SUITE_P(Autograd, ReferenceCase, ::testing::Values("attention_only_untied", "mlp_tied"));

// Central differences of the float32 loss on a few entries of every kind of tensor.
TEST(TrainBackward, MatchesFiniteDifferences) {
    const fs::path folder = kData / "mlp_tied";
    const nlohmann::json j = readJson(folder / "case.json");
    Trainer trainer(caseConfig(j));
    const Eigen::VectorXf weights =
        parametersFromTensors(trainer.layout(), io::readSafetensors((folder / "weights.safetensors").string()));
    trainer.setParameters(weights);
    const Batch batch = caseBatch(j);
    Eigen::VectorXf gradient, unused;
    trainer.lossAndGradient(batch, gradient);
    const double h = 1e-2;
    int checked = 0;
    for (const char* name : {"wte.weight", "wpe.weight", "h.0.ln_1.weight", "h.0.attn.c_attn.weight",
                             "h.1.attn.c_attn.bias", "h.1.attn.c_proj.weight", "h.0.mlp.c_fc.weight",
                             "h.1.mlp.c_proj.bias", "ln_f.bias"}) {
        const ParameterInfo* info = trainer.layout().find(name);
        ASSERT_NE(info, nullptr) << name;
        // The entry of the tensor with the largest gradient: well above float32's noise.
        Eigen::Index k = 0;
        gradient.segment(info->offset, info->rows * info->cols).cwiseAbs().maxCoeff(&k);
        const Eigen::Index index = info->offset + k;
        Eigen::VectorXf shifted = weights;
        shifted(index) = weights(index) + float(h);
        trainer.setParameters(shifted);
        const double up = trainer.lossAndGradient(batch, unused);
        shifted(index) = weights(index) - float(h);
        trainer.setParameters(shifted);
        const double down = trainer.lossAndGradient(batch, unused);
        const double numeric = (up - down) / (2 * h);
        std::printf("  %-24s analytic %.6f, central difference %.6f\n", name, gradient(index), numeric);
        EXPECT_NEAR(gradient(index), numeric, 2e-3 + 0.02 * std::abs(numeric)) << name;
        ++checked;
    }
    EXPECT_EQ(checked, 9);
}

TEST(TrainAdam, MatchesTorchOptimAdam) {
    const nlohmann::json j = readJson(kData / "adam.json");
    const std::vector<float> start = j["start"];
    Eigen::VectorXf p = Eigen::Map<const Eigen::VectorXf>(start.data(), Eigen::Index(start.size()));
    Adam adam(p.size(), double(j["lr"]));
    for (std::size_t t = 0; t < j["gradients"].size(); ++t) {
        const std::vector<float> g = j["gradients"][t], after = j["after"][t];
        adam.step(p, Eigen::Map<const Eigen::VectorXf>(g.data(), p.size()));
        const double difference = (p - Eigen::Map<const Eigen::VectorXf>(after.data(), p.size())).cwiseAbs().maxCoeff();
        std::printf("  Adam step %zu: max |ours - torch| %.3g\n", t + 1, difference);
        EXPECT_LT(difference, 1e-6) << "step " << t + 1;  // parameters of order 1, lr 1e-2
    }
    EXPECT_EQ(adam.steps(), 3);
}

// Weight decay and warm-up (TrainConfig's weight_decay, warmup_steps) against torch.optim.AdamW
// with its learning rate set before each step as the warm-up sets it.
TEST(TrainAdam, MatchesTorchOptimAdamWWithWarmUp) {
    const nlohmann::json j = readJson(kData / "adamw.json");
    const std::vector<float> start = j["start"];
    Eigen::VectorXf p = Eigen::Map<const Eigen::VectorXf>(start.data(), Eigen::Index(start.size()));
    const double lr = j["lr"], warmup = j["warmup"];
    Adam adam(p.size(), lr, 0.9, 0.999, 1e-8, double(j["weight_decay"]));
    for (std::size_t t = 0; t < j["gradients"].size(); ++t) {
        adam.setLearningRate(lr * std::min(1.0, double(t + 1) / warmup));
        const std::vector<float> g = j["gradients"][t], after = j["after"][t];
        adam.step(p, Eigen::Map<const Eigen::VectorXf>(g.data(), p.size()));
        const double difference = (p - Eigen::Map<const Eigen::VectorXf>(after.data(), p.size())).cwiseAbs().maxCoeff();
        std::printf("  AdamW step %zu: max |ours - torch| %.3g\n", t + 1, difference);
        EXPECT_LT(difference, 1e-6) << "step " << t + 1;
    }
}

// The batch's structure: the string's L tokens from f (0 unless random_start) repeated to the end,
// repeated_from = f + L; every position counted, or with two_copies the tokens distinct and
// lengths = f + 2L (the padding continuing the repetition).
void expectRepeats(const TrainConfig& c, const Batch& b, std::set<int>& lengths, std::set<int>& starts, int& strings_with_repeats) {
    for (int s = 0; s < b.sequences; ++s) {
        const int L = b.repeat[std::size_t(s)], f = b.repeated_from[std::size_t(s)] - L;
        lengths.insert(L), starts.insert(f);
        ASSERT_GE(L, c.min_repeat);
        ASSERT_LE(L, c.max_repeat);
        ASSERT_EQ(b.lengths[std::size_t(s)], c.two_copies ? f + 2 * L : b.n);
        ASSERT_GE(f, 0);
        ASSERT_LE(f + 2 * L, b.n);
        if (!c.random_start) {
            ASSERT_EQ(f, 0);
        }
        const int* ids = b.ids.data() + std::size_t(s) * b.n;
        const std::size_t distinct = std::set<int>(ids + f, ids + f + L).size();
        if (c.two_copies) {
            EXPECT_EQ(distinct, std::size_t(L)) << "the string's tokens are distinct";
        }
        if (distinct < std::size_t(L)) ++strings_with_repeats;
        for (int t = 0; t < b.n; ++t) {
            ASSERT_GE(ids[t], 0);
            ASSERT_LT(ids[t], c.vocab);
            if (t >= f + L) {
                ASSERT_EQ(ids[t], ids[t - L]) << "sequence " << s << " position " << t;
            }
        }
    }
}

TEST(TrainData, SequencesRepeatAfterTheirLength) {
    TrainConfig c;
    std::set<int> lengths, starts;
    int with_repeats = 0;
    expectRepeats(c, RepeatData(c, 5).next(200), lengths, starts, with_repeats);
    EXPECT_EQ(int(lengths.size()), c.max_repeat - c.min_repeat + 1) << "every length in the range occurs";
    EXPECT_EQ(starts, std::set<int>{0});
    // Independent draws: P(20 tokens of 64 all distinct) is about 0.04, of 6 about 0.78.
    EXPECT_GT(with_repeats, 40) << "the string's tokens are independent draws, repeats allowed";

    c.random_start = true;
    lengths.clear(), starts.clear();
    expectRepeats(c, RepeatData(c, 5).next(200), lengths, starts, with_repeats);
    EXPECT_GT(starts.size(), 10u) << "the copies start at many offsets";

    c.two_copies = true;  // the earlier task: distinct tokens, written twice
    lengths.clear(), starts.clear(), with_repeats = 0;
    expectRepeats(c, RepeatData(c, 5).next(200), lengths, starts, with_repeats);
    EXPECT_EQ(with_repeats, 0);
    EXPECT_GT(starts.size(), 10u);

    c.min_repeat = c.max_repeat = 7;  // the fixed-length case
    const Batch fixed = RepeatData(c, 5).next(20);
    for (int L : fixed.repeat) EXPECT_EQ(L, 7);
    EXPECT_EQ(RepeatData(c, 9).next(3).ids, RepeatData(c, 9).next(3).ids) << "the same for a seed";
    EXPECT_NE(RepeatData(c, 9).next(3).ids, RepeatData(c, 10).next(3).ids);
}

// The defaults are the task on which the induction circuit forms (README, Training): pinned so
// that a change to them is deliberate.
TEST(TrainConfig, DefaultsAreTheInductionTask) {
    const TrainConfig c;
    EXPECT_EQ(c.layers, 2);
    EXPECT_EQ(c.d_model, 32);
    EXPECT_EQ(c.heads, 2);
    EXPECT_EQ(c.vocab, 64);
    EXPECT_FALSE(c.mlp);
    EXPECT_EQ(c.context, 64);
    EXPECT_EQ(c.min_repeat, 6);
    EXPECT_EQ(c.max_repeat, 20);
    EXPECT_FALSE(c.two_copies);
    EXPECT_FALSE(c.random_start);
    EXPECT_DOUBLE_EQ(c.learning_rate, 3e-3);
    EXPECT_EQ(c.batch, 32);
    EXPECT_EQ(c.weight_decay, 0.0);
    EXPECT_EQ(c.warmup_steps, 200);
    EXPECT_DOUBLE_EQ(c.init_std, 0.02);
}

TEST(TrainMetrics, ScoresOfHandMadeHeads) {
    const std::vector<int> tokens = {5, 6, 7, 8, 5, 6, 7, 8, 5};  // a string of 4, repeated
    const int n = int(tokens.size());
    Eigen::MatrixXf previous = Eigen::MatrixXf::Zero(n, n), induction = Eigen::MatrixXf::Zero(n, n),
                    uniform = Eigen::MatrixXf::Zero(n, n);
    previous(0, 0) = 1, induction(0, 0) = 1;
    for (int i = 1; i < n; ++i) previous(i, i - 1) = 1;
    for (int i = 0; i < n; ++i) {
        uniform.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
        if (i >= 4) induction(i, i - 3) = 1;           // the token after the previous occurrence
        else if (i > 0) induction(i, i) = 1;
    }
    EXPECT_DOUBLE_EQ(previousTokenScore(previous), 1.0);
    EXPECT_DOUBLE_EQ(prefixMatchingScore(induction, tokens), 1.0);
    EXPECT_DOUBLE_EQ(prefixMatchingScore(previous, tokens), 0.0) << "i - 1 is never after an earlier i's token here";
    EXPECT_DOUBLE_EQ(previousTokenScore(induction), 0.0);
    // Uniform causal attention: previous token gets 1/(i+1); mean over i = 1..8.
    double expected = 0;
    for (int i = 1; i < n; ++i) expected += 1.0 / (i + 1);
    EXPECT_NEAR(previousTokenScore(uniform), expected / (n - 1), 1e-7);
    // Query 8 (token 5) has two earlier 5s, at 0 and 4: keys 1 and 5, 2/9 of its weight.
    EXPECT_NEAR(prefixMatchingScore(uniform, tokens), (1.0 / 5 + 1.0 / 6 + 1.0 / 7 + 1.0 / 8 + 2.0 / 9) / 5, 1e-7);
    EXPECT_DOUBLE_EQ(prefixMatchingScore(uniform, {1, 2, 3, 4, 5, 6, 7, 8, 9}), 0.0) << "no repeat, no score";
}

TEST(TrainMetrics, AccuracyCountsOnlyTheRepeatedPart) {
    // 2 sequences of 4 tokens; logits (vocab 3, 8) with the arg-max chosen per position.
    const std::vector<int> ids = {0, 1, 0, 1, 2, 1, 0, 2}, repeated_from = {2, 3}, lengths = {4, 4};
    Eigen::MatrixXf logits_t = Eigen::MatrixXf::Zero(3, 8);
    const int guesses[8] = {1, 0, 1, -1, 0, 0, 2, -1};  // -1: the last position, no target
    for (int r = 0; r < 8; ++r)
        if (guesses[r] >= 0) logits_t(guesses[r], r) = 5;
    const TokenStatistics stats = tokenStatistics(logits_t, ids.data(), lengths.data(), repeated_from.data(), 2, 4);
    EXPECT_EQ(stats.targets, 6);
    EXPECT_EQ(stats.repeated_targets, 1 + 0);  // seq 0: t = 2 (t < 3); seq 1: t >= 3 has no target
    EXPECT_EQ(stats.repeated_correct, 1);       // seq 0 t 2 predicts ids[3] = 1: guessed 1
    const double right = std::log(2.0 + std::exp(5.0)) - 5.0;
    EXPECT_NEAR(stats.repeatedLoss(), right, 1e-6);
    EXPECT_DOUBLE_EQ(stats.repeatedAccuracy(), 1.0);
}

TEST(TrainTrainer, DeterministicForASeed) {
    TrainConfig c;
    c.d_model = 16, c.context = 20, c.max_repeat = 8, c.batch = 8, c.eval_every = 2, c.eval_sequences = 8;
    Trainer a(c), b(c);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(a.step(), b.step());
    EXPECT_EQ(a.parameters(), b.parameters());
    ASSERT_EQ(a.evaluations().size(), 3u);  // steps 0, 2, 4
    EXPECT_EQ(a.evaluations().back().repeated_loss, b.evaluations().back().repeated_loss);
    c.seed = 2;
    Trainer other(c);
    other.step();
    EXPECT_NE(other.parameters(), Trainer(TrainConfig(a.config())).parameters());
}

TEST(TrainTrainer, SnapshotsStayBounded) {
    TrainConfig c;
    c.d_model = 8, c.context = 12, c.max_repeat = 6, c.batch = 2, c.eval_every = 1, c.eval_sequences = 2;
    c.max_snapshots = 6;
    Trainer t(c);
    for (int i = 0; i < 40; ++i) t.step();
    EXPECT_LE(int(t.snapshots().size()), c.max_snapshots);
    EXPECT_EQ(t.snapshots().front().step, 0);
    EXPECT_EQ(t.snapshots().back().step, 40);
    EXPECT_EQ(t.evaluations().size(), 41u);
    ASSERT_EQ(t.snapshots().back().weights.size(), std::size_t(c.layers * c.heads));
    for (const Eigen::MatrixXf& w : t.snapshots().back().weights) {
        EXPECT_EQ(w.rows(), c.context);
        EXPECT_NEAR(w.rowwise().sum().minCoeff(), 1.0, 1e-5);
        EXPECT_EQ(w(0, 1), 0.0f) << "causal: nothing after the query";
    }
}

TEST(TrainTrainer, AShortRunLowersTheLoss) {
    TrainConfig c;
    c.d_model = 16, c.context = 16, c.min_repeat = 3, c.max_repeat = 8, c.vocab = 16, c.batch = 16;
    c.eval_every = 100, c.eval_sequences = 32, c.warmup_steps = 0;
    Trainer t(c);
    for (int i = 0; i < 300; ++i) t.step();
    const Evaluation& first = t.evaluations().front();
    const Evaluation& last = t.evaluations().back();
    std::printf("held-out loss %.3f -> %.3f, repeated part %.3f -> %.3f, accuracy %.3f -> %.3f\n", first.loss,
                last.loss, first.repeated_loss, last.repeated_loss, first.repeated_accuracy, last.repeated_accuracy);
    EXPECT_NEAR(first.loss, std::log(16.0), 0.1) << "untrained: about uniform over the vocabulary";
    EXPECT_LT(last.loss, first.loss - 0.3);
    EXPECT_LT(last.repeated_loss, first.repeated_loss - 0.3);
}

TEST(TrainConfig, ImpossibleSettingsAreRefusedInOneSentence) {
    TrainConfig c;
    c.heads = 3;
    EXPECT_THROW({ Trainer t(c); }, std::invalid_argument);
    c = {}, c.context = 20;
    EXPECT_NE(c.problem().find("cannot hold two copies"), std::string::npos) << c.problem();
    c = {}, c.layers = 5;
    EXPECT_NE(c.problem().find("layers"), std::string::npos);
    c = {}, c.learning_rate = std::nan("");
    EXPECT_FALSE(c.problem().empty());
    c = {}, c.vocab = 10;
    EXPECT_TRUE(c.problem().empty()) << "tokens may repeat within the string: " << c.problem();
    c.two_copies = true;
    EXPECT_NE(c.problem().find("distinct"), std::string::npos) << c.problem();
    EXPECT_TRUE(TrainConfig{}.problem().empty());
}

}  // namespace
