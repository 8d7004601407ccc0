#pragma once
// The body of both command-line executables: usage, --version, dispatch, and the convention
// that bad arguments or input print one line "headscope-cli: <message>" and exit 2.
//   headscope-cli          runs `info` with QtCore alone and hands every command that draws
//                          (export, run, model, lesson, bench) to headscope-cli-widgets beside
//                          it: loading Qt's GUI libraries would be 8 ms of a 40 ms `info`.
//   headscope-cli-widgets  runs every command.

#include <QStringList>
#include <filesystem>
#include <functional>
#include <optional>

namespace headscope::cli {

// Runs `command` with the arguments after its name; nullopt when there is no such command.
using Dispatch =
    std::function<std::optional<int>(const QString& command, const QStringList& arguments, int argc, char** argv)>;

int commandLineMain(int argc, char** argv, const Dispatch& dispatch);

// Whether `command` needs Qt's GUI libraries (the painter, the views, a window for bench).
bool drawsWithWidgets(const QString& command);

// The directory of the running executable (/proc/self/exe follows symlinks), else argv0's.
std::filesystem::path executableDirectory(const char* argv0);

// Replaces this process by headscope-cli-widgets, found beside this executable, with the same
// arguments. Returns only by throwing UsageError when that program cannot be started.
[[noreturn]] void execWidgetsCommand(char** argv);

}  // namespace headscope::cli
