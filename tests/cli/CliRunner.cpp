#include "CliRunner.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {
std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}
std::atomic<int> counter{0};
}  // namespace

TempDir::TempDir() {
    path = fs::temp_directory_path() /
           ("headscope-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

CliResult runCli(const std::vector<std::string>& arguments) { return runProgram(HEADSCOPE_CLI, arguments); }

CliResult runProgram(const std::string& program, const std::vector<std::string>& arguments,
                     const std::string& environment) {
    TempDir capture;
    std::string command = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM ";
    command += environment;
    command += ' ';
    command += quote(program);
    for (const auto& a : arguments) {
        command += ' ';
        command += quote(a);
    }
    command += " >" + quote((capture.path / "out").string()) + " 2>" + quote((capture.path / "err").string()) +
               " </dev/null";
    const int raw = std::system(command.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = readFile(capture.path / "out");
    r.err = readFile(capture.path / "err");
    return r;
}
