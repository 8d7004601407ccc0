// libFuzzer target: a whole GPT-2 checkpoint directory (io/Gpt2Checkpoint.h
// loadGpt2Checkpoint) whose model.safetensors is the fuzz input, tried against the
// config.json, vocab.json and merges.txt of each tiny reference model in tests/data/gpt2.
// The directory's model.safetensors is a link to a memory file, so nothing touches the disk.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "FuzzFile.h"
#include "io/Gpt2Checkpoint.h"
#include "io/IoError.h"

namespace fs = std::filesystem;

namespace {

struct Directories {
    FuzzFile model;
    fs::path root;
    std::vector<std::string> cases;

    Directories() {
        root = fs::temp_directory_path() / ("headscope-fuzz-gpt2-" + std::to_string(::getpid()));
        const fs::path data = fs::path(HEADSCOPE_TEST_DATA_DIR) / "gpt2";
        for (const auto& entry : fs::directory_iterator(data)) {
            if (!entry.is_directory()) continue;
            const fs::path dir = root / entry.path().filename();
            fs::create_directories(dir);
            for (const char* file : {"config.json", "vocab.json", "merges.txt"})
                fs::copy_file(entry.path() / file, dir / file, fs::copy_options::overwrite_existing);
            fs::create_symlink(model.path(), dir / "model.safetensors");
            cases.push_back(dir.string());
        }
        if (cases.empty()) std::abort();
    }
    // At exit, as the static instance below is destroyed (libFuzzer and the replay both exit
    // normally); the link targets' memory file closes after, with `model`.
    ~Directories() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    static Directories& instance() {
        static Directories directories;
        return directories;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Directories& dirs = Directories::instance();
    dirs.model.write(data, size);
    for (const std::string& dir : dirs.cases) {
        try {
            const auto model = headscope::io::loadGpt2Checkpoint(dir);
            if (!model) std::abort();
        } catch (const headscope::io::IoError& error) {
            checkMessage(error.what());
        }
    }
    return 0;
}
