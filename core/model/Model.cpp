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
    if (family == "qwen3") return "Qwen3";
    if (family == "smollm3") return "SmolLM3";
    if (family == "olmo2") return "OLMo 2";
    if (family == "gemma2") return "Gemma 2";
    if (family == "gemma3_text") return "Gemma 3";
    if (family == "phi3") return "Phi-3";
    if (family == "bert") return "BERT";
    if (family == "roberta") return "RoBERTa";
    if (family == "distilbert") return "DistilBERT";
    if (family == "modernbert") return "ModernBERT";
    return family;
}

std::string describeArchitecture(const Model& m) {
    const ModelConfig& c = m.config;
    std::string line = c.familyName();
    if (c.encoder) line += ", encoder (attention in both directions, masked-LM head)";
    line += c.norm == NormKind::RmsNorm ? ", RMSNorm" : ", LayerNorm";
    if (c.post_norm) line += " after each sublayer's sum";
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
    if (!c.rope_layers.empty()) {
        int nope = 0;
        for (bool rotates : c.rope_layers) nope += rotates ? 0 : 1;
        if (nope) line += ", " + std::to_string(nope) + (nope == 1 ? " layer" : " layers") + " without RoPE";
    }
    if (c.local_rope_theta > 0) {
        char local[64];
        std::snprintf(local, sizeof local, c.encoder ? " (local layers theta %g)" : " (sliding layers theta %g)", c.local_rope_theta);
        line += local;
    }
    if (c.parallel_residual) line += ", parallel residual";
    if (!m.blocks.empty() && m.blocks.front().attention.hasQkNorm())
        line += m.blocks.front().attention.qk_norm_per_head ? ", q/k RMSNorm per head" : ", q/k RMSNorm over all heads";
    if (!c.post_norm && !m.blocks.empty() && m.blocks.front().attention_out_norm.weight.size())
        line += m.blocks.front().ln_1.weight.size() ? ", sandwich norms" : ", norms after each sublayer";
    if (c.embedding_scale > 0) line += ", embeddings x sqrt(d_model)";
    if (c.query_pre_attn_scalar > 0) {
        char scale[64];
        std::snprintf(scale, sizeof scale, ", scores x 1/sqrt(%g)", c.query_pre_attn_scalar);
        line += scale;
    }
    if (c.attn_logit_softcap > 0 || c.final_logit_softcap > 0) {
        char caps[96];
        std::snprintf(caps, sizeof caps, ", softcaps %g (scores) and %g (logits)", c.attn_logit_softcap, c.final_logit_softcap);
        line += caps;
    }
    if (c.sliding_window > 0) {
        int sliding = 0;
        for (int l = 0; l < c.n_layer; ++l) sliding += c.windowOf(l) > 0 ? 1 : 0;
        line += (c.encoder ? ", local band |q - k| <= " : ", sliding window ") + std::to_string(c.sliding_window) + " on " +
                (sliding == c.n_layer ? std::string("every layer") : std::to_string(sliding) + " of " + std::to_string(c.n_layer) + " layers");
    }
    line += ", " + std::to_string(c.n_head) + " heads on " + std::to_string(c.kvHeads()) + " K/V heads, " + m.dtype;
    return line;
}

Eigen::VectorXf rotaryInverseFrequencies(const ModelConfig& c, bool long_factors) {
    const int m = c.rotary_dims / 2;
    Eigen::VectorXf inverse(m);  // (rotary_dims / 2)
    const std::vector<double>& ext = long_factors ? c.rope_long_factor : c.rope_short_factor;
    const bool longrope = c.rope_scaling == "longrope" && static_cast<int>(ext.size()) == m;
    for (int p = 0; p < m; ++p) {
        const float power = std::pow(static_cast<float>(c.rope_theta), static_cast<float>(2 * p) / float(c.rotary_dims));
        // HF _compute_longrope_parameters: 1 / (ext * base^(2p/d)) in float
        inverse(p) = 1.0f / (longrope ? static_cast<float>(ext[std::size_t(p)]) * power : power);
    }
    if (c.rope_scaling == "linear") inverse /= static_cast<float>(c.rope_factor);  // HF: inv_freq / factor
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
                 b.W_proj.size() + b.b_proj.size() + b.attention_out_norm.weight.size() + b.mlp_out_norm.weight.size();
    return count - zero_biases;
}

std::shared_ptr<const Weights> Model::attentionWeights(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(blocks.size()))
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist (the model has " +
                                    std::to_string(blocks.size()) + " layers)");
    return attention_layers.get(layer, blocks[std::size_t(layer)].attention);
}

}  // namespace headscope::model
