// libFuzzer target: the .safetensors reader on arbitrary bytes: the header, every
// shape and dtype query, and every tensor read. Anything wrong must be one IoError.
#include "FuzzFile.h"
#include "io/Safetensors.h"

using namespace headscope::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input;
    try {
        SafetensorsReader reader(input.write(data, size));
        for (const std::string& name : reader.names()) {
            if (!reader.contains(name)) std::abort();
            const auto& shape = reader.shape(name);
            (void)reader.dtype(name);
            try {
                const Tensor tensor = reader.read(name);
                if (tensor.shape != shape || static_cast<std::size_t>(tensor.size()) != tensor.data.size()) std::abort();
            } catch (const IoError& error) {
                checkMessage(error.what());  // an unsupported dtype or a float64 out of range
            }
        }
    } catch (const IoError& error) {
        checkMessage(error.what());
    }
    return 0;
}
