// libFuzzer target: the .npy reader on arbitrary bytes. Valid files must read back
// through the writer unchanged; everything else must be one IoError.
#include <cstring>

#include "FuzzFile.h"
#include "io/Npy.h"

using namespace headscope::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input, output;
    Tensor tensor;
    try {
        tensor = readNpy(input.write(data, size));
    } catch (const IoError& error) {
        checkMessage(error.what());
        return 0;
    }
    if (static_cast<std::size_t>(tensor.size()) != tensor.data.size()) std::abort();
    // Round trip: what was read is written as '<f4' and must read back bit for bit.
    writeNpy(output.path(), tensor);
    const Tensor back = readNpy(output.path());
    if (back.shape != tensor.shape || back.data.size() != tensor.data.size() ||
        (!tensor.data.empty() && std::memcmp(back.data.data(), tensor.data.data(), tensor.data.size() * 4) != 0))
        std::abort();
    return 0;
}
