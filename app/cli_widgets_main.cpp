// headscope-cli-widgets: every headscope-cli command, with Qt's GUI libraries loaded for the
// ones that draw. headscope-cli hands those to it; it may be run directly with the same arguments.
#include "cli/CommandLine.h"
#include "cli/Commands.h"

int main(int argc, char** argv) {
    using namespace headscope::cli;
    return commandLineMain(argc, argv, [](const QString& command, const QStringList& arguments, int argc,
                                          char** argv) -> std::optional<int> {
        if (command == "info") return runInfo(arguments);
        if (command == "train") return runTrain(arguments);
        if (command == "export") return runExport(arguments, argc, argv);
        if (command == "run") return runRun(arguments, argc, argv);
        if (command == "bench") return runBench(arguments, argc, argv);
        if (command == "model") return runModel(arguments, argc, argv);
        if (command == "lesson") return runLesson(arguments, argc, argv);
        return std::nullopt;
    });
}
