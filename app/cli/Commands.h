#pragma once
// headscope-cli's commands. Each takes the arguments after its name, writes its result to
// stdout (or files) and returns the exit status; bad arguments or input throw UsageError.

#include <QStringList>

namespace headscope::cli {

int runInfo(const QStringList& arguments);
int runExport(const QStringList& arguments, int argc, char** argv);
int runRun(const QStringList& arguments, int argc, char** argv);
int runBench(const QStringList& arguments, int argc, char** argv);
int runModel(const QStringList& arguments, int argc, char** argv);
int runLesson(const QStringList& arguments, int argc, char** argv);
int runTrain(const QStringList& arguments);

}  // namespace headscope::cli
