// libFuzzer target: a GPT-2 directory's config.json (io/Gpt2Checkpoint.h readGpt2Config)
// on arbitrary bytes: a config that reads must describe a model that can exist.
#include "FuzzFile.h"
#include "io/Gpt2Checkpoint.h"
#include "io/IoError.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input;
    try {
        const auto config = headscope::io::readGpt2Config(input.write(data, size));
        if (config.n_layer < 1 || config.n_head < 1 || config.n_embd < 1 || config.n_embd % config.n_head != 0)
            std::abort();
    } catch (const headscope::io::IoError& error) {
        checkMessage(error.what());
    }
    return 0;
}
