// libFuzzer target: config.json of the rotary families (io/Checkpoint.h readLlamaConfig for the
// Llama-like ones, readNeoxConfig for GPT-NeoX) and of the encoders (readEncoderConfig: BERT,
// RoBERTa, DistilBERT, ModernBERT) on arbitrary bytes, both transformers 4's and 5's
// keys (io/RopeConfig.h: rope_parameters flat or per layer type, rope_scaling, layer_types,
// LongRoPE factors, no_rope_layers). A config that reads must describe a model that can exist,
// and its rotary frequencies and attention factor must be finite.
#include <cmath>

#include "FuzzFile.h"
#include "io/Checkpoint.h"
#include "io/IoError.h"

namespace {

void check(const headscope::model::ModelConfig& c) {
    const auto layers = static_cast<std::size_t>(c.n_layer);
    if (c.n_layer < 1 || c.n_head < 1 || c.kvHeads() < 1 || c.n_head % c.kvHeads() != 0 || c.headDim() < 1) std::abort();
    if (c.encoder && (c.n_positions < 1 || c.type_vocab_size < 0 || c.padding_position_id < -1)) std::abort();
    if (c.rotary_dims < 0 || c.rotary_dims > c.headDim() || c.rotary_dims % 2 != 0) std::abort();
    if (!c.sliding_layers.empty() && c.sliding_layers.size() != layers) std::abort();
    if (!c.rope_layers.empty() && c.rope_layers.size() != layers) std::abort();
    if (c.rope_scaling == "longrope" && (c.rope_short_factor.size() != std::size_t(c.rotary_dims / 2) ||
                                         c.rope_long_factor.size() != std::size_t(c.rotary_dims / 2)))
        std::abort();
    if (!(std::isfinite(c.rope_attention_scaling) && c.rope_attention_scaling > 0) || c.rope_original_max_positions < 1)
        std::abort();
    for (bool long_factors : {false, true}) {
        const Eigen::VectorXf inverse = headscope::model::rotaryInverseFrequencies(c, long_factors);
        if (inverse.size() != c.rotary_dims / 2 || !inverse.allFinite()) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile input;
    const std::string path = input.write(data, size);
    for (const auto read : {&headscope::io::readLlamaConfig, &headscope::io::readNeoxConfig, &headscope::io::readEncoderConfig}) {
        try {
            check(read(path));
        } catch (const headscope::io::IoError& error) {
            checkMessage(error.what());
        }
    }
    return 0;
}
