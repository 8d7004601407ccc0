#include "cli/CommandLine.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include "Memory.h"
#include "cli/Arguments.h"
#include "io/Quote.h"

namespace headscope::cli {

namespace {

// Every command and every option its parser accepts (keep in step with app/cli/*.cpp): each
// command's own lines, printed alone by `headscope-cli <command> --help`, all of them by --help.
struct CommandHelp {
    const char* name;
    const char* lines;
    bool config_options;  // takes the config options below
};
constexpr CommandHelp kCommands[] = {
    {"info",
     "  info    [config options] [--ablate H,H [--ablate-mode zero|mean]] [--json]\n"
     "          configuration, costs, spectra, ranks, equivalence; --ablate knocks heads out of the\n"
     "          layer and shows, per position, how much its output (n x d_model) changes\n",
     true},
    {"export", "  export  [config options] --out DIR [--format png,svg,pdf,csv,npy] [--scale S] [--head H] [--delta N]\n"
               "          every matrix, spectra.csv, ranks.csv and every view as a picture; --head H: the head whose\n"
               "          circuits are drawn (circuit_qk_head_H, circuit_ov_head_H; default 0)\n"
               "          --delta N: a rotary model's W_QK,i(Δ) = W_i^Q R(Δ) (W_i^K)ᵀ at key minus query position N\n"
               "          (the generated layers have no rotary positions: there it is refused)\n", true},
    {"run",
     "  run     --weights F.safetensors --heads H --query X.npy [--key-value Y.npy]\n"
     "          [--mask none|causal] [--pad-keys LIST] [--prefix P] [--format png,svg,pdf|none] --out DIR\n"
     "          your own PyTorch nn.MultiheadAttention (its state dict, names under --prefix P) on the\n"
     "          query X (n_q x d_model) and keys/values Y (default X): attention.npy (h, n_q, n_kv),\n"
     "          output.npy, spectra.csv, ranks.csv and every picture export draws (tokens named by position)\n",
     false},
    {"model",
     "  model   --checkpoint DIR|REPO [--revision R] (--text \"...\" [--pair \"...\"] | --ids 1,2,3)\n"
     "          [--layer L] [--mask causal|none] [--temperature T] [--ablate L.H,L.H [--ablate-mode zero|mean]]\n"
     "          [--json] [--cache-layers N]\n"
     "          [--out DIR [--attention-only | [--format png,svg,pdf,csv,npy] [--scale S] [--delta N]]]\n"
     "          a checkpoint folder or a repo id in the Hugging Face cache (model_type gpt2, llama,\n"
     "          mistral, qwen2, qwen3, smollm3, olmo2, gemma2, gemma3_text, gemma3, phi3, gpt_neox, or\n"
     "          the encoders bert, roberta, distilbert, modernbert with --pair for a sentence pair and\n"
     "          [MASK] guesses; F32, F16 or BF16): tokens, ids, ranks per layer and head, what each\n"
     "          head looks at (--json: head_patterns), top-10 next tokens, the\n"
     "          log-probability of each actual next token and the loss; --ablate knocks heads out\n"
     "          (zero: they write nothing; mean: their mean output) and shows before and after;\n"
     "          --out writes attention_layer_L.npy (heads, n, n) and layer_L/ as export does\n"
     "          (--attention-only: the arrays alone);\n"
     "          --delta N (rotary models): W_QK pictures and head_<i>_W_QK_delta_N at distance N;\n"
     "          --cache-layers N: F16/BF16 layers kept converted to float (default 2, 0: none)\n",
     false},
    {"lesson",
     "  lesson  N --out DIR [--format png,svg,pdf] [--scale S]   slides of lesson N (one image per step)\n"
     "          and lesson-N.md, a handout with the live numbers;  lesson --list\n",
     false},
    {"train",
     "  train   [--layers N --d-model N --heads H --vocab V --context N --min-repeat L --max-repeat L |\n"
     "          --fixed-repeat L --lr R --weight-decay W --warmup N --init-std S --batch B --steps S --seed S\n"
     "          --mlp --tied --random-start --two-copies --eval-every K]\n"
     "          --out DIR [--json]   trains a small transformer on repeated strings (an induction head),\n"
     "          prints the curves and saves it as a GPT-2 folder (train --help: every option)\n",
     false},
    {"bench",
     "  bench   [--json] [--runs N] [--no-gui | --gui-only | --models-only] [--quick] [--cache-layers N]\n"
     "          timings at BERT-base and a large geometry, against a GEMM floor measured in the same run,\n"
     "          of the window's updates, and of opening GPT-2-small and Llama-3.2-1B sized checkpoints it\n"
     "          writes (random weights); --cache-layers N as for model\n"
     "  bench   --write-model NAME --model-dir DIR [--quick]   writes one of those checkpoints to keep\n"
     "          (gpt2_small, llama_1b, qwen3_0.6b, gemma3_1b, bert_base, modernbert_base), for\n"
     "          headscope --bench --model DIR\n",
     false},
};
constexpr const char* kConfigOptions =
    "config options: --d-model N --heads H [--d-k N] [--d-v N] [--kv-heads N]\n"
    "                (--text \"...\" | --seq-len N) [--source-text \"...\"] [--mask none|causal]\n"
    "                [--pad-keys LIST] [--no-scale] [--temperature T] [--seed S]\n"
    "                [--init xavier|normal|identity] [--sigma S] [--no-bias] [--rank-rtol R] [--session FILE]\n";

std::string usage() {
    std::string text = "usage: headscope-cli <command> [options]\ncommands:\n";
    for (const CommandHelp& c : kCommands) text += c.lines;
    text += kConfigOptions;
    text += "'headscope-cli <command> --help' shows one command's options.\n";
    return text;
}

// `headscope-cli <command> --help`: that command's lines (and the config options it takes).
std::optional<std::string> commandHelp(const QString& command) {
    for (const CommandHelp& c : kCommands) {
        if (command != QLatin1String(c.name)) continue;
        std::string text = "usage: headscope-cli " + std::string(c.name) + " [options]\n" + c.lines;
        if (c.config_options) text += kConfigOptions;
        return text;
    }
    return std::nullopt;
}

bool asksForHelp(const QStringList& arguments) {
    for (const QString& argument : arguments) {
        if (argument == QLatin1String("--")) return false;  // what follows is not an option
        if (argument == QLatin1String("--help") || argument == QLatin1String("-h")) return true;
    }
    return false;
}

}  // namespace

std::filesystem::path executableDirectory(const char* argv0) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path(argv0 ? argv0 : "").parent_path() : self.parent_path();
}

bool drawsWithWidgets(const QString& command) {
    return command == "export" || command == "run" || command == "model" || command == "lesson" || command == "bench";
}

void execWidgetsCommand(char** argv) {
    const std::string program = (executableDirectory(argv[0]) / "headscope-cli-widgets").string();
    std::cout.flush();
    std::fflush(stdout);
    ::execv(program.c_str(), argv);
    const int error = errno;
    throw UsageError("cannot run '" + std::string(argv[1]) + "': " + io::quotePath(program) + ": " + std::strerror(error) +
                     " (that program draws the pictures; build it beside headscope-cli)");
}

int commandLineMain(int argc, char** argv, const Dispatch& dispatch) {
    // Freed layers stay in the heap for the next analysis (Memory.h): a process-wide setting,
    // so every program's main makes it (this is the CLI's), never core.
    keepFreedMemory();
    if (argc < 2 || QString(argv[1]) == "--help" || QString(argv[1]) == "-h" || QString(argv[1]) == "help") {
        std::fputs(usage().c_str(), argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (QString(argv[1]) == "--version") {
        std::printf("headscope-cli %s\n", HEADSCOPE_VERSION);
        return 0;
    }
    const QString command = QString::fromLocal8Bit(argv[1]);
    QStringList rest;
    for (int i = 2; i < argc; ++i) rest << QString::fromLocal8Bit(argv[i]);
    // `<command> --help` is answered here, by both programs, without a display or a QApplication.
    if (const std::optional<std::string> help = commandHelp(command); help && asksForHelp(rest)) {
        std::fputs(help->c_str(), stdout);
        return 0;
    }
    try {
        const std::optional<int> status = dispatch(command, rest, argc, argv);
        if (!status)
            throw UsageError("unknown command " + io::quote(command.toStdString()) +
                             " (use info, export, run, model, lesson, train or bench)");
        // A full disk or a closed pipe must not pass for success.
        std::cout.flush();
        if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
            throw UsageError("cannot write the output (disk full or pipe closed?)");
        return *status;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "headscope-cli: %s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "headscope-cli: out of memory: choose a smaller configuration\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "headscope-cli: %s\n", e.what());
        return 2;
    }
}

}  // namespace headscope::cli
