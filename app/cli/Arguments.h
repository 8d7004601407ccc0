#pragma once
// Shared argument handling for headscope-cli's commands: the config options of the
// command-line contract, strict number parsing, and the one-line error convention.

#include <QCommandLineParser>
#include <QStringList>
#include <stdexcept>
#include <string>

#include "Config.h"

namespace headscope::cli {

// Bad arguments or bad input: main prints "headscope-cli: <message>" and exits 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// --d-model --heads --d-k --d-v --kv-heads --text --seq-len --source-text --mask --pad-keys
// --no-scale --temperature --seed --init --sigma --no-bias --rank-rtol --session
void addConfigOptions(QCommandLineParser& parser);

// The demo configuration, then --session, then each option given. Throws UsageError,
// also when the result does not validate (every problem, joined into one line).
Config configFromOptions(const QCommandLineParser& parser);

// Parses arguments (argv without the program and command names) or throws UsageError.
void parseOrThrow(QCommandLineParser& parser, const QStringList& arguments);

// Before a QApplication in the CLI: Qt's offscreen platform (no display needed) and a
// private runtime directory when XDG_RUNTIME_DIR is unset, so Qt prints no warning.
void prepareHeadlessQt();

int parseInt(const QString& option, const QString& text, int low, int high);
double parseDouble(const QString& option, const QString& text);
std::string requireValue(const QCommandLineParser& parser, const QString& option);

}  // namespace headscope::cli
