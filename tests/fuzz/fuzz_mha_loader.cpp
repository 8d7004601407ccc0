// libFuzzer target: the nn.MultiheadAttention loader on an arbitrary .safetensors file.
// The layer prefix is taken from the file (any name ending in out_proj.weight) and head
// counts 1 to 4 are tried; a layer that loads must pass Weights::check() and run through
// the engine's forward pass on a few tokens.
#include "Engine.h"
#include "FuzzFile.h"
#include "io/MhaLoader.h"
#include "io/Safetensors.h"

using namespace headscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input;
    const std::string& path = input.write(data, size);
    std::string prefix;
    try {
        const std::string suffix = "out_proj.weight";
        for (const std::string& name : io::SafetensorsReader(path).names())
            if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                prefix = name.substr(0, name.size() - suffix.size());
                break;
            }
    } catch (const io::IoError& error) {
        checkMessage(error.what());
        return 0;
    }
    for (int heads = 1; heads <= 4; ++heads) {
        try {
            const Weights w = io::loadMultiheadAttention(path, heads, prefix);
            if (!w.check().empty()) std::abort();
            if (w.dModel() <= 256) {
                const Eigen::MatrixXf x = Eigen::MatrixXf::Ones(3, w.dModel());
                AttentionOptions options;
                options.mask = MaskKind::Causal;
                const Results r = forward(options, w, x, x);
                if (r.output.rows() != 3 || r.output.cols() != w.dModel()) std::abort();
            }
        } catch (const io::IoError& error) {
            checkMessage(error.what());
        }
    }
    return 0;
}
