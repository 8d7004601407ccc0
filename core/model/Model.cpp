#include "model/Model.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace headscope::model {

std::string ModelConfig::familyName() const {
    if (family == "gpt2") return "GPT-2";
    if (family == "llama") return "Llama";
    if (family == "mistral") return "Mistral";
    if (family == "qwen2") return "Qwen2";
    if (family == "gpt_neox") return "GPT-NeoX";
    return family;
}

std::string describeArchitecture(const Model& m) {
    const ModelConfig& c = m.config;
    std::string line = c.familyName();
    line += c.norm == NormKind::RmsNorm ? ", RMSNorm" : ", LayerNorm";
    line += c.mlp == MlpKind::Gated ? ", gated MLP " : ", MLP ";
    line += c.activation_name;
    if (c.rotary_dims > 0) {
        char rope[64];
        std::snprintf(rope, sizeof rope, ", RoPE theta %g on %g%% of each head", c.rope_theta, 100 * c.rotaryShare());
        line += rope;
        if (!c.rope_scaling.empty()) line += " (" + c.rope_scaling + " scaling)";
    } else if (c.position_embedding) {
        line += ", learned positions";
    }
    if (c.parallel_residual) line += ", parallel residual";
    line += ", " + std::to_string(c.n_head) + " heads on " + std::to_string(c.kvHeads()) + " K/V heads, " + m.dtype;
    return line;
}

Eigen::VectorXf rotaryInverseFrequencies(const ModelConfig& c) {
    const int m = c.rotary_dims / 2;
    Eigen::VectorXf inverse(m);  // (rotary_dims / 2)
    for (int p = 0; p < m; ++p)
        inverse(p) = 1.0f / std::pow(static_cast<float>(c.rope_theta), static_cast<float>(2 * p) / float(c.rotary_dims));
    if (c.rope_scaling == "llama3") {
        // HF _compute_llama3_parameters: wavelengths longer than original / low_freq_factor are
        // slowed by factor, shorter than original / high_freq_factor kept, those between blended.
        const double old_context = c.rope_original_max_positions;
        const double low_wavelength = old_context / c.rope_low_freq_factor;
        const double high_wavelength = old_context / c.rope_high_freq_factor;
        for (int p = 0; p < m; ++p) {
            const float f = inverse(p);
            const double wavelength = 2 * M_PI / f;
            if (wavelength > low_wavelength) {
                inverse(p) = static_cast<float>(f / c.rope_factor);
            } else if (wavelength >= high_wavelength) {
                const double smooth = (old_context / wavelength - c.rope_low_freq_factor) /
                                      (c.rope_high_freq_factor - c.rope_low_freq_factor);
                inverse(p) = static_cast<float>((1 - smooth) * f / c.rope_factor + smooth * f);
            }
        }
    }
    return inverse;
}

long long Model::parameterCount() const {
    long long count = wte.size() + wpe_t.size() + lm_head.size() + ln_f.weight.size() + ln_f.bias.size();
    for (const Block& b : blocks)
        count += b.ln_1.weight.size() + b.ln_1.bias.size() + b.attention.parameterCount() + b.ln_2.weight.size() +
                 b.ln_2.bias.size() + b.W_fc.size() + b.W_gate.size() + b.b_fc.size() + b.b_gate.size() +
                 b.W_proj.size() + b.b_proj.size();
    return count - zero_biases;
}

std::shared_ptr<const Weights> Model::attentionWeights(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(blocks.size()))
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist (the model has " +
                                    std::to_string(blocks.size()) + " layers)");
    return attention_layers.get(layer, blocks[std::size_t(layer)].attention);
}

}  // namespace headscope::model
