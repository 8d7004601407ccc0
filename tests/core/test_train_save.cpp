// core/train/SaveGpt2: a trained model saved as a GPT-2 folder opens with io::loadGpt2Checkpoint,
// and model::runModel on it gives the trainer's own logits; its vocabulary reads as characters.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "TempDirTest.h"
#include "io/Gpt2Checkpoint.h"
#include "io/Safetensors.h"
#include "model/Forward.h"
#include "train/SaveGpt2.h"
#include "train/Trainer.h"

using namespace headscope;
using namespace headscope::train;

namespace {

class TrainSave : public TempDirTest {
protected:
    // Trains a few steps, saves, loads, and compares every position's logits on the probe and on a
    // held-out sequence. Returns the largest difference.
    double roundTrip(TrainConfig c) {
        c.d_model = 16, c.context = 20, c.max_repeat = 8, c.vocab = 24, c.batch = 8, c.eval_every = 100;
        c.eval_sequences = 4;
        Trainer trainer(c);
        for (int i = 0; i < 20; ++i) trainer.step();
        saveGpt2Folder(c, trainer.layout(), trainer.parameters(), dir_.string());
        const model::ModelPtr loaded = io::loadGpt2Checkpoint(dir_.string());
        EXPECT_EQ(loaded->config.n_layer, c.layers);
        EXPECT_EQ(loaded->config.n_head, c.heads);
        EXPECT_EQ(loaded->config.vocab_size, c.vocab);
        EXPECT_EQ(loaded->config.n_positions, c.context);
        EXPECT_EQ(loaded->tiedOutput(), c.tied_embeddings);
        model::ForwardOptions options;
        options.all_logits = true;
        double worst = 0;
        for (const std::vector<int>& ids : {trainer.probe(), RepeatData(c, 77).next(1).ids}) {
            const model::Trace trace = model::runModel(*loaded, ids, options);
            const Eigen::MatrixXf ours = trainer.logits(ids);  // (n, vocab)
            worst = std::max<double>(worst, (trace.logits - ours).cwiseAbs().maxCoeff());
            // The attention the loaded model shows is the trainer's.
            forwardPass(c, trainer.layout(), trainer.parameters().data(), ids.data(), 1, act_);
            for (int l = 0; l < c.layers; ++l)
                for (int h = 0; h < c.heads; ++h)
                    EXPECT_LT((trace.layers[std::size_t(l)].attention.heads[std::size_t(h)].weights - act_.attention(l, 0, h))
                                  .cwiseAbs().maxCoeff(), 1e-5);
        }
        std::printf("max |runModel logits - trainer logits| %.3g\n", worst);
        return worst;
    }
    Activations act_;
};

// float32 both ways, the same operations in a different order: 1e-5 on logits of order 1-10.
constexpr double kLogitTolerance = 1e-5;

TEST_F(TrainSave, AttentionOnlyFolderOpensAndComputesTheSameLogits) {
    EXPECT_LT(roundTrip(TrainConfig{}), kLogitTolerance);
    // Zero MLP weights and an identity ln_2: any GPT-2 reader adds nothing.
    const auto tensors = io::readSafetensors(path("model.safetensors"));
    EXPECT_TRUE(tensors.count("transformer.h.1.mlp.c_fc.weight"));
    EXPECT_TRUE(tensors.count("lm_head.weight")) << "untied by default";
    for (float v : tensors.at("transformer.h.0.mlp.c_proj.weight").data) ASSERT_EQ(v, 0.0f);
    for (float v : tensors.at("transformer.h.0.ln_2.weight").data) ASSERT_EQ(v, 1.0f);
    std::ifstream header(path("model.safetensors"), std::ios::binary);
    std::string start(200, '\0');
    header.read(start.data(), 200);
    EXPECT_NE(start.find("\"__metadata__\":{\"format\":\"pt\"}"), std::string::npos);
}

TEST_F(TrainSave, MlpTiedFolderOpensAndComputesTheSameLogits) {
    TrainConfig c;
    c.mlp = true, c.tied_embeddings = true, c.layers = 3;
    EXPECT_LT(roundTrip(c), kLogitTolerance);
    EXPECT_FALSE(io::readSafetensors(path("model.safetensors")).count("lm_head.weight"));
}

TEST_F(TrainSave, VocabularyIsOneCharacterPerToken) {
    TrainConfig c;
    c.d_model = 8, c.context = 12, c.max_repeat = 6, c.vocab = TrainConfig::kMaxVocab, c.eval_sequences = 2;
    Trainer trainer(c);
    saveGpt2Folder(c, trainer.layout(), trainer.parameters(), dir_.string());
    const model::ModelPtr loaded = io::loadGpt2Checkpoint(dir_.string());
    std::string every;
    for (int id = 0; id < c.vocab; ++id) every += vocabularySymbol(id);
    std::vector<int> expected(std::size_t(c.vocab));
    for (int id = 0; id < c.vocab; ++id) expected[std::size_t(id)] = id;
    EXPECT_EQ(loaded->tokenizer->encode(every), expected) << every;
    EXPECT_EQ(loaded->tokenizer->encode("abcabc"), (std::vector<int>{0, 1, 2, 0, 1, 2}));
    const nlohmann::json config = nlohmann::json::parse(std::ifstream(path("config.json")));
    EXPECT_EQ(config["model_type"], "gpt2");
    EXPECT_EQ(config["architectures"][0], "GPT2LMHeadModel");
    EXPECT_THROW(vocabularySymbol(TrainConfig::kMaxVocab), std::invalid_argument);
}

TEST_F(TrainSave, AnUnwritableFolderIsOneError) {
    TrainConfig c;
    c.d_model = 8, c.context = 12, c.max_repeat = 6, c.eval_sequences = 2;
    Trainer trainer(c);
    writeFile("x", "file");
    EXPECT_THROW(saveGpt2Folder(c, trainer.layout(), trainer.parameters(), path("file") + "/sub"), io::IoError);
}

}  // namespace

namespace {

// The scores on a model known to hold an induction head (../shared/models/induction: layer 1
// heads 1 and 2 attend to the token after the previous occurrence; layer 0 head 0 most to the
// previous token at about 76% of positions, per its README, with a mean weight of about 0.34).
TEST(TrainMetricsOnARealModel, InductionCheckpointScoresItsKnownHeads) {
    const std::string dir = std::string(HEADSCOPE_SHARED_MODELS_DIR) + "/induction";
    if (!std::filesystem::exists(dir + "/model.safetensors"))
        GTEST_SKIP() << "the trained checkpoint " << dir << " is absent (it lives beside the project in ../shared/models)";
    const model::ModelPtr m = io::loadGpt2Checkpoint(dir);
    const std::vector<int> ids = m->tokenizer->encode("qxvkzjwbpfmy qxvkzjwbpfmy qxvkzjwbpfmy");
    const model::Trace trace = model::runModel(*m, ids);
    auto weights = [&](int l, int h) { return trace.layers[std::size_t(l)].attention.heads[std::size_t(h)].weights; };
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h)
            std::printf("  L%dH%d previous-token %.2f prefix-matching %.2f\n", l, h, previousTokenScore(weights(l, h)),
                        prefixMatchingScore(weights(l, h), ids));
    EXPECT_GT(prefixMatchingScore(weights(1, 1), ids), 0.5);
    EXPECT_GT(prefixMatchingScore(weights(1, 2), ids), 0.5);
    EXPECT_GT(previousTokenScore(weights(0, 0)), 0.25);
    EXPECT_LT(previousTokenScore(weights(1, 1)), 0.1) << "an induction head is no previous-token head";
    EXPECT_LT(prefixMatchingScore(weights(0, 0), ids), 0.3) << "a previous-token head is no induction head";
}

}  // namespace
