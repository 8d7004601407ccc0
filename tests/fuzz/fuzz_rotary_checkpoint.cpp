// libFuzzer target: a whole Llama / Qwen2 / GPT-NeoX checkpoint directory (io/Checkpoint.h
// loadCheckpoint) whose model.safetensors is the fuzz input, tried against the config.json,
// vocab.json and merges.txt of each single-file random model in tests/data/rotary. A
// checkpoint that loads runs a three-token forward pass. The directory's model.safetensors
// is a link to a memory file, so nothing touches the disk.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "FuzzFile.h"
#include "io/Checkpoint.h"
#include "io/IoError.h"
#include "model/Forward.h"

namespace fs = std::filesystem;

namespace {

struct Directories {
    FuzzFile model;
    fs::path root;
    std::vector<std::string> cases;

    Directories() {
        root = fs::temp_directory_path() / ("headscope-fuzz-rotary-" + std::to_string(::getpid()));
        const fs::path data = fs::path(HEADSCOPE_TEST_DATA_DIR) / "rotary";
        for (const char* name : {"qwen2_tied", "llama3_scaled", "neox_sequential"}) {
            const fs::path dir = root / name;
            fs::create_directories(dir);
            for (const char* file : {"config.json", "vocab.json", "merges.txt"})
                fs::copy_file(data / name / file, dir / file, fs::copy_options::overwrite_existing);
            fs::create_symlink(model.path(), dir / "model.safetensors");
            cases.push_back(dir.string());
        }
    }
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
            const auto model = headscope::io::loadCheckpoint(dir);
            if (!model) std::abort();
            const auto trace = headscope::model::runModel(*model, {0, 1, 2});
            if (trace.layers.size() != model->blocks.size()) std::abort();
        } catch (const headscope::io::IoError& error) {
            checkMessage(error.what());
        }
    }
    return 0;
}
