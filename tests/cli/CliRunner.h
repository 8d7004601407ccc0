#pragma once
// Runs headscope-cli as a user would and captures what it printed.
#include <filesystem>
#include <string>
#include <vector>

struct CliResult {
    int status = -1;
    std::string out, err;
};

// Arguments are passed verbatim (quoted for the shell); the display is unset, as on CI.
CliResult runCli(const std::vector<std::string>& arguments);
// The same for any program, with `environment` ("NAME=value ...", unquoted) added to its environment.
CliResult runProgram(const std::string& program, const std::vector<std::string>& arguments,
                     const std::string& environment = "");

// A fresh empty directory under the temp dir, removed by the destructor.
struct TempDir {
    std::filesystem::path path;
    TempDir();
    ~TempDir();
    std::string str() const { return path.string(); }
};

std::string readFile(const std::filesystem::path& path);
void writeFile(const std::filesystem::path& path, const std::string& bytes);
