// headscope-cli train: trains the small transformer of core/train on the repeated-string task
// (issue 23) and prints, per evaluation, the losses, the accuracy on the repeated half and every
// head's previous-token and prefix-matching (induction) scores on the probe; --json prints one
// JSON object instead. The trained model is saved as a GPT-2 folder in --out, which
// `headscope-cli model --checkpoint DIR` and File > Open model open like any other.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "train/SaveGpt2.h"
#include "train/Trainer.h"

namespace headscope::cli {

namespace {

constexpr const char* kTrainUsage =
    "usage: headscope-cli train [options] --out DIR [--json]\n"
    "Trains a small GPT-2-shaped transformer on strings of random tokens repeated to fill the context,\n"
    "prints the curves and saves the model as a GPT-2 folder in DIR.\n"
    "  --layers N         1 to 4 (default 2)          --d-model N      width (default 32)\n"
    "  --heads H          per layer (default 2)       --vocab V        4 to 94 tokens (default 64)\n"
    "  --context N        tokens per sequence (64)    --mlp            add GELU MLPs (default attention-only)\n"
    "  --tied             unembedding = wte^T         --random-start   the copies after a random filler\n"
    "  --two-copies       the string's tokens distinct, written only twice (not repeated to fill the context)\n"
    "  --min-repeat L     shortest string (6)         --max-repeat L   longest string (20)\n"
    "  --fixed-repeat L   every string L long (a one-layer model can then copy from a fixed offset)\n"
    "  --lr R             Adam learning rate (3e-3)   --batch B        sequences per step (32)\n"
    "  --weight-decay W   AdamW's decoupled decay (0) --warmup N       steps of linear lr warm-up (200)\n"
    "  --init-std S       initial weights' std (0.02)\n"
    "  --steps S          steps (default 2000)        --seed S         weights and data (default 1)\n"
    "  --eval-every K     steps between evaluations (default 50)\n"
    "  --json             one JSON object instead of the table\n";

train::TrainConfig configFrom(const QCommandLineParser& p) {
    train::TrainConfig c;
    using train::TrainConfig;
    if (p.isSet("layers")) c.layers = parseInt("layers", p.value("layers"), 1, TrainConfig::kMaxLayers);
    if (p.isSet("d-model")) c.d_model = parseInt("d-model", p.value("d-model"), 2, TrainConfig::kMaxDModel);
    if (p.isSet("heads")) c.heads = parseInt("heads", p.value("heads"), 1, TrainConfig::kMaxDModel);
    if (p.isSet("vocab")) c.vocab = parseInt("vocab", p.value("vocab"), 4, TrainConfig::kMaxVocab);
    if (p.isSet("context")) c.context = parseInt("context", p.value("context"), 4, TrainConfig::kMaxContext);
    if (p.isSet("fixed-repeat") && (p.isSet("min-repeat") || p.isSet("max-repeat")))
        throw UsageError("give --fixed-repeat alone, or --min-repeat and --max-repeat");
    if (p.isSet("min-repeat")) c.min_repeat = parseInt("min-repeat", p.value("min-repeat"), 2, TrainConfig::kMaxContext);
    if (p.isSet("max-repeat")) c.max_repeat = parseInt("max-repeat", p.value("max-repeat"), 2, TrainConfig::kMaxContext);
    if (p.isSet("fixed-repeat"))
        c.min_repeat = c.max_repeat = parseInt("fixed-repeat", p.value("fixed-repeat"), 2, TrainConfig::kMaxContext);
    if (p.isSet("lr")) c.learning_rate = parseDouble("lr", p.value("lr"));
    if (p.isSet("weight-decay")) c.weight_decay = parseDouble("weight-decay", p.value("weight-decay"));
    if (p.isSet("warmup")) c.warmup_steps = parseInt("warmup", p.value("warmup"), 0, 1'000'000);
    if (p.isSet("init-std")) c.init_std = parseDouble("init-std", p.value("init-std"));
    if (p.isSet("batch")) c.batch = parseInt("batch", p.value("batch"), 1, 4096);
    if (p.isSet("seed")) c.seed = std::uint64_t(parseInt("seed", p.value("seed"), 0, 2'000'000'000));
    if (p.isSet("eval-every")) c.eval_every = parseInt("eval-every", p.value("eval-every"), 1, 1'000'000);
    c.mlp = p.isSet("mlp");
    c.tied_embeddings = p.isSet("tied");
    c.random_start = p.isSet("random-start");
    c.two_copies = p.isSet("two-copies");
    const std::string problem = c.problem();
    if (!problem.empty()) throw UsageError(problem);
    return c;
}

// Heads as "L0H1".
std::string headName(const train::TrainConfig& c, std::size_t index) {
    return "L" + std::to_string(int(index) / c.heads) + "H" + std::to_string(int(index) % c.heads);
}

}  // namespace

int runTrain(const QStringList& arguments) {
    if (arguments.contains("--help") || arguments.contains("-h")) {
        std::fputs(kTrainUsage, stdout);
        return 0;
    }
    QCommandLineParser parser;
    for (const char* option : {"layers", "d-model", "heads", "vocab", "context", "min-repeat", "max-repeat",
                               "fixed-repeat", "lr", "weight-decay", "warmup", "init-std", "batch", "steps", "seed", "eval-every", "out"})
        parser.addOption({option, option, "value"});
    for (const char* flag : {"mlp", "tied", "random-start", "two-copies", "json"}) parser.addOption({flag, flag});
    parseOrThrow(parser, arguments);
    const train::TrainConfig config = configFrom(parser);
    const int steps = parser.isSet("steps") ? parseInt("steps", parser.value("steps"), 0, 10'000'000) : 2000;
    const std::string out = requireValue(parser, "out");

    const auto start = std::chrono::steady_clock::now();
    train::Trainer trainer(config);
    double seconds_to_90 = -1;
    long long step_at_90 = -1;
    for (int s = 0; s < steps; ++s) {
        const std::size_t evaluations = trainer.evaluations().size();
        trainer.step();
        if (step_at_90 < 0 && trainer.evaluations().size() > evaluations &&
            trainer.evaluations().back().repeated_accuracy >= 0.9) {
            step_at_90 = trainer.steps();
            seconds_to_90 = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    train::saveGpt2Folder(config, trainer.layout(), trainer.parameters(), out);

    const auto& evaluations = trainer.evaluations();
    if (parser.isSet("json")) {
        nlohmann::json j;
        j["config"] = {{"layers", config.layers}, {"d_model", config.d_model}, {"heads", config.heads},
                       {"vocab", config.vocab}, {"context", config.context}, {"mlp", config.mlp},
                       {"tied", config.tied_embeddings}, {"min_repeat", config.min_repeat},
                       {"max_repeat", config.max_repeat}, {"random_start", config.random_start}, {"two_copies", config.two_copies},
                       {"lr", config.learning_rate}, {"weight_decay", config.weight_decay},
                       {"warmup", config.warmup_steps}, {"init_std", config.init_std}, {"batch", config.batch}, {"seed", config.seed},
                       {"eval_every", config.eval_every}, {"steps", steps},
                       {"parameters", trainer.layout().size()}};
        j["evaluations"] = nlohmann::json::array();
        for (const train::Evaluation& e : evaluations)
            j["evaluations"].push_back({{"step", e.step},
                                        {"train_loss", e.step > 0 ? nlohmann::json(e.train_loss) : nlohmann::json(nullptr)},
                                        {"loss", e.loss},
                                        {"repeated_loss", e.repeated_loss}, {"repeated_accuracy", e.repeated_accuracy},
                                        {"previous_token", e.previous_token}, {"prefix_matching", e.prefix_matching}});
        j["seconds"] = seconds;
        j["step_at_90_percent"] = step_at_90 >= 0 ? nlohmann::json(step_at_90) : nlohmann::json(nullptr);
        j["seconds_to_90_percent"] = seconds_to_90 >= 0 ? nlohmann::json(seconds_to_90) : nlohmann::json(nullptr);
        j["out"] = out;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("training %lld parameters: %d layer%s, d_model %d, %d heads, vocabulary %d, context %d, %s, "
                "strings of %d-%d tokens, lr %g, batch %d, seed %llu\n",
                static_cast<long long>(trainer.layout().size()), config.layers, config.layers > 1 ? "s" : "",
                config.d_model, config.heads, config.vocab, config.context, config.mlp ? "with MLPs" : "attention-only",
                config.min_repeat, config.max_repeat, config.learning_rate, config.batch,
                static_cast<unsigned long long>(config.seed));
    std::printf("%7s %10s %8s %9s %9s", "step", "train loss", "loss", "rep. loss", "rep. acc");
    for (std::size_t h = 0; h < evaluations.front().previous_token.size(); ++h)
        std::printf("  %s prev/ind", headName(config, h).c_str());
    std::printf("\n");
    for (const train::Evaluation& e : evaluations) {
        if (e.step > 0)
            std::printf("%7lld %10.4f", e.step, e.train_loss);
        else
            std::printf("%7lld %10s", e.step, "-");  // no training batch yet
        std::printf(" %8.4f %9.4f %8.1f%%", e.loss, e.repeated_loss, 100 * e.repeated_accuracy);
        for (std::size_t h = 0; h < e.previous_token.size(); ++h)
            std::printf("  %6.2f/%-6.2f", e.previous_token[h], e.prefix_matching[h]);
        std::printf("\n");
    }
    std::printf("%d steps in %.2f s; ", steps, seconds);
    if (step_at_90 >= 0)
        std::printf("90%% accuracy on the repeated half at step %lld (%.2f s)\n", step_at_90, seconds_to_90);
    else
        std::printf("90%% accuracy on the repeated half not reached\n");
    std::printf("saved to %s (open it with: headscope-cli model --checkpoint DIR --text \"...\")\n", out.c_str());
    return 0;
}

}  // namespace headscope::cli
