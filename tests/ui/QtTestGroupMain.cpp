// main() of a group of QtTest files (QtTestGroup.h): runs the file its first argument names.
#include "QtTestGroup.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

std::map<std::string, headscope::test::QtTestRun>& registry() {
    static std::map<std::string, headscope::test::QtTestRun> runs;  // file stem -> its tests
    return runs;
}

}  // namespace

bool headscope::test::registerQtTest(const char* source_file, QtTestRun run) {
    const std::string name = std::filesystem::path(source_file).stem().string();
    if (!registry().emplace(name, run).second) {
        std::fprintf(stderr, "two QtTest files named %s in one program\n", name.c_str());
        std::abort();
    }
    return true;
}

int main(int argc, char** argv) {
    const auto found = argc > 1 ? registry().find(argv[1]) : registry().end();
    if (found == registry().end()) {
        std::fprintf(stderr, "usage: %s TEST [QtTest options and functions]\nTEST is one of:", argv[0]);
        for (const auto& [name, run] : registry()) std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }
    // QtTest reads the arguments after the file's name, with the program's name first.
    std::vector<char*> arguments{argv[0]};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    arguments.push_back(nullptr);
    return found->second(static_cast<int>(arguments.size()) - 1, arguments.data());
}
