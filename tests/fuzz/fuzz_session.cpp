// libFuzzer target: session files (.headscope.json) on arbitrary bytes, through the
// file reader. A session that loads must validate without throwing and survive a save
// and reload unchanged.
#include "Config.h"
#include "FuzzFile.h"
#include "io/IoError.h"
#include "io/SessionFile.h"

using namespace headscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input;
    Config config;
    try {
        config = io::loadSession(input.write(data, size));
    } catch (const io::IoError& error) {
        checkMessage(error.what());
        return 0;
    }
    for (const std::string& problem : config.validate()) checkMessage(problem.c_str());
    if (io::configFromJson(io::configToJson(config)) != config) std::abort();
    return 0;
}
