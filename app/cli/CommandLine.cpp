#include "cli/CommandLine.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "Memory.h"
#include "cli/Arguments.h"
#include "io/Quote.h"

namespace headscope::cli {

namespace {

// Every command and every option its parser accepts (keep in step with app/cli/*.cpp).
constexpr const char* kUsage =
    "usage: headscope-cli <command> [options]\n"
    "commands:\n"
    "  info    [config options] [--json]      configuration, costs, spectra, ranks, equivalence\n"
    "  export  [config options] --out DIR [--format png,svg,pdf,csv,npy] [--scale S]\n"
    "  run     --weights F.safetensors --heads H --query X.npy [--key-value Y.npy]\n"
    "          [--mask none|causal] [--pad-keys LIST] [--prefix P] [--format png,svg,pdf|none] --out DIR\n"
    "  model   --checkpoint DIR (--text \"...\" | --ids 1,2,3) [--layer L] [--mask causal|none]\n"
    "          [--temperature T] [--json] [--out DIR [--format png,svg,pdf,csv,npy] [--scale S]]\n"
    "          a GPT-2 directory: tokens, ids, ranks per layer and head, top-10 next tokens;\n"
    "          --out writes attention_layer_L.npy (heads, n, n) and layer_L/ as export does\n"
    "  lesson  N --out DIR [--format png,svg,pdf] [--scale S]   slides of lesson N (one image per step)\n"
    "          and lesson-N.md, a handout with the live numbers;  lesson --list\n"
    "  train   [--layers N --d-model N --heads H --vocab V --context N --min-repeat L --max-repeat L |\n"
    "          --fixed-repeat L --lr R --batch B --steps S --seed S --mlp --tied --random-start --two-copies --eval-every K]\n"
    "          --out DIR [--json]   trains a small transformer on repeated strings (an induction head),\n"
    "          prints the curves and saves it as a GPT-2 folder (train --help: every option)\n"
    "  bench   [--json] [--runs N] [--no-gui | --gui-only] [--quick]   timings at BERT-base and a large\n"
    "          geometry, against a GEMM floor measured in the same run, and of the window's updates\n"
    "config options: --d-model N --heads H [--d-k N] [--d-v N] [--kv-heads N]\n"
    "                (--text \"...\" | --seq-len N) [--source-text \"...\"] [--mask none|causal]\n"
    "                [--pad-keys LIST] [--no-scale] [--temperature T] [--seed S]\n"
    "                [--init xavier|normal|identity] [--sigma S] [--no-bias] [--rank-rtol R] [--session FILE]\n"
    "'headscope-cli <command> --help' is not needed: every option is listed above.\n";

// The directory of the running executable (/proc/self/exe follows symlinks), else argv[0]'s.
std::filesystem::path executableDirectory(const char* argv0) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path(argv0 ? argv0 : "").parent_path() : self.parent_path();
}

}  // namespace

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
    keepFreedMemory();
    if (argc < 2 || QString(argv[1]) == "--help" || QString(argv[1]) == "-h" || QString(argv[1]) == "help") {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (QString(argv[1]) == "--version") {
        std::printf("headscope-cli %s\n", HEADSCOPE_VERSION);
        return 0;
    }
    const QString command = QString::fromLocal8Bit(argv[1]);
    QStringList rest;
    for (int i = 2; i < argc; ++i) rest << QString::fromLocal8Bit(argv[i]);
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
