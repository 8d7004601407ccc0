// headscope-cli: the attention engine from the command line (see README "Command line").
// `info` runs here with QtCore alone; the commands that draw run in headscope-cli-widgets,
// which this process becomes (cli/CommandLine.h).
#include "cli/CommandLine.h"
#include "cli/Commands.h"

int main(int argc, char** argv) {
    using namespace headscope::cli;
    return commandLineMain(argc, argv, [](const QString& command, const QStringList& arguments, int,
                                          char** argv) -> std::optional<int> {
        if (command == "info") return runInfo(arguments);
        if (command == "train") return runTrain(arguments);
        if (drawsWithWidgets(command)) execWidgetsCommand(argv);
        return std::nullopt;
    });
}
