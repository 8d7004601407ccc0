// config.json of the Llama-like families (io/LlamaFamily.h), in transformers 4's and 5's keys,
// each family's defaults as its configuration_*.py sets them:
//   every family  hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
//                 num_key_value_heads (num_attention_heads), head_dim (hidden / heads; Qwen3 128,
//                 Gemma 256), hidden_act (silu; Gemma hidden_activation, gelu_pytorch_tanh),
//                 max_position_embeddings, rms_norm_eps (1e-6; OLMo 2, Phi-3 1e-5), the rotation
//                 (io/RopeConfig.h), attention_bias (false; Qwen2: q, k, v biases always),
//                 mlp_bias (false), tie_word_embeddings (false; Gemma, SmolLM3 true), vocab_size,
//                 dtype or torch_dtype
//   windows       Mistral and Phi-3: sliding_window on every layer; Qwen2, Qwen3 and SmolLM3 with
//                 use_sliding_window (max_window_layers, no_rope_layers); Gemma: sliding_window
//                 (4096) on the layers "layer_types" (or the alternation, Gemma 3's
//                 sliding_window_pattern) names
//   Gemma         query_pre_attn_scalar (256), attn_logit_softcapping and final_logit_softcapping
//                 (Gemma 2: 50, 30; Gemma 3: none), rope_local_base_freq (10000), nested
//                 rope_parameters; use_bidirectional_attention is refused
//   Gemma 3       image-text folders: "text_config" (io/LlamaFamily.h textTowerConfig)
//   SmolLM3       no_rope_layers (1 rotates, 0 does not), or no_rope_layer_interval (4)
// Mixture-of-experts layers (num_experts, num_local_experts) are refused in one sentence.
#include <cmath>
#include <stdexcept>

#include "Config.h"
#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/IoError.h"
#include "io/LlamaFamily.h"
#include "io/Quote.h"
#include "io/RopeConfig.h"

namespace headscope::io {

using checkpoint::ConfigFields;
using checkpoint::RopeDefaults;

const std::vector<std::string>& llamaFamilyTypes() {
    static const std::vector<std::string> types = {"llama",   "mistral", "qwen2",  "qwen3",      "smollm3",
                                                   "olmo2",   "gemma2",  "gemma3_text", "gemma3", "phi3"};
    return types;
}

LlamaFamily llamaFamily(const std::string& type) {
    LlamaFamily family;
    if (type == "qwen2") {
        family.qkv_biases = true;
    } else if (type == "qwen3") {
        family.qk_norm = LlamaFamily::QkNorm::PerHead;
    } else if (type == "olmo2") {
        family.qk_norm = LlamaFamily::QkNorm::Whole;
        family.post_norms = true;
    } else if (type == "gemma2") {
        family.gemma = true;
    } else if (type == "gemma3_text" || type == "gemma3") {
        family.gemma = true;
        family.qk_norm = LlamaFamily::QkNorm::PerHead;
    } else if (type == "phi3") {
        family.fused = true;
    } else if (type != "llama" && type != "mistral" && type != "smollm3") {
        throw std::invalid_argument("model_type '" + type + "' is not a Llama-like family");
    }
    return family;
}

namespace {

model::Activation activationOf(const ConfigFields& f, const std::string& key, const std::string& fallback,
                               std::string& name) {
    name = f.string(key, fallback);
    if (name == "silu" || name == "swish") return model::Activation::Silu;
    if (name == "gelu") return model::Activation::GeluErf;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh") return model::Activation::GeluTanh;
    if (name == "relu") return model::Activation::Relu;
    f.fail("\"" + key + "\" " + quote(name, 40) + " is not supported (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, relu)");
}

// A number that may be null (none, 0) or absent (the family's default).
double optionalNumber(const ConfigFields& f, const std::string& key, double fallback) {
    if (f.object().contains(key) && f.object()[key].is_null()) return 0;
    return f.number(key, 0, 1e6, fallback);
}

// Which layers slide, for the families without "layer_types" or with it (io/RopeConfig.h).
void readWindows(const ConfigFields& f, model::ModelConfig& c, const std::vector<bool>& no_rope) {
    const std::string& type = c.family;
    const auto layers = [&](const auto& sliding) {
        std::vector<bool> v(std::size_t(c.n_layer));
        for (int l = 0; l < c.n_layer; ++l) v[std::size_t(l)] = sliding(l);
        return v;
    };
    if (type == "mistral" || type == "phi3") {  // one sliding mask for every layer when a window is set
        if (f.has("sliding_window")) c.sliding_window = f.integer("sliding_window", 1, 1 << 24);
    } else if (type == "qwen2" || type == "qwen3") {
        if (f.boolean("use_sliding_window", false) && f.has("sliding_window"))
            c.sliding_window = f.integer("sliding_window", 1, 1 << 24);
        const int first = f.integer("max_window_layers", 0, 1 << 16, 28);
        checkpoint::readLayerTypes(f, layers([&](int l) { return l >= first; }), c);
    } else if (type == "smollm3") {
        if (f.boolean("use_sliding_window", false) && f.has("sliding_window"))
            c.sliding_window = f.integer("sliding_window", 1, 1 << 24);
        checkpoint::readLayerTypes(f, layers([&](int l) { return !no_rope[std::size_t(l)]; }), c);
    } else if (type == "gemma2" || type == "gemma3_text") {
        if (!(f.object().contains("sliding_window") && f.object()["sliding_window"].is_null()))
            c.sliding_window = f.integer("sliding_window", 1, 1 << 24, 4096);
        int pattern = 2;  // Gemma 2: layers 0, 2, 4 ... slide
        if (type == "gemma3_text")
            pattern = f.integer(f.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern", 1,
                                1 << 16, 6);
        checkpoint::readLayerTypes(f, layers([&](int l) { return (l + 1) % pattern != 0; }), c);
    }
    if (c.sliding_window == 0) c.sliding_layers.clear();
}

}  // namespace

bool isImageTextGemma3(const nlohmann::json& config) {
    // Any JSON at all: a model_type that is not a string is refused later, in a sentence.
    const auto type = config.find("model_type");
    return type != config.end() && type->is_string() && *type == "gemma3";
}

nlohmann::json textTowerConfig(const nlohmann::json& config, const std::string& path) {
    if (!isImageTextGemma3(config)) return config;
    if (!config.contains("text_config") || !config["text_config"].is_object())
        throw IoError("cannot read '" + path + "': a Gemma 3 image-text config (model_type \"gemma3\") needs its "
                      "\"text_config\", the settings of the text tower HeadScope opens");
    nlohmann::json text = config["text_config"];
    // Gemma3TextConfig's defaults (configuration_gemma3.py): the hub's image-text configs name only what differs.
    const nlohmann::json defaults = {{"vocab_size", 262208},   {"hidden_size", 2304},         {"intermediate_size", 9216},
                                     {"num_hidden_layers", 26}, {"num_attention_heads", 8},    {"num_key_value_heads", 4},
                                     {"head_dim", 256},         {"max_position_embeddings", 131072}};
    for (const auto& [key, value] : defaults.items())
        if (!text.contains(key)) text[key] = value;
    for (const char* key : {"dtype", "torch_dtype"})
        if (config.contains(key) && !text.contains("dtype") && !text.contains("torch_dtype")) text[key] = config[key];
    text["model_type"] = "gemma3_text";
    return text;
}

model::ModelConfig readLlamaConfig(const std::string& path) {
    const nlohmann::json config = textTowerConfig(checkpoint::readConfigJson(path, "Llama"), path);
    const ConfigFields f(config, path, "Llama");
    model::ModelConfig c;
    c.family = f.string("model_type");
    const std::vector<std::string>& types = llamaFamilyTypes();
    if (std::find(types.begin(), types.end(), c.family) == types.end())
        f.fail("\"model_type\" is " + quote(c.family, 40) + "; this reader takes llama, mistral, qwen2, qwen3, smollm3, "
               "olmo2, gemma2, gemma3_text, gemma3 and phi3");
    const bool gemma = c.family == "gemma2" || c.family == "gemma3_text";
    for (const char* key : {"num_experts", "num_local_experts"})
        if (f.has(key) && !(config[key].is_number_integer() && config[key].get<long long>() == 0))
            f.fail("\"" + std::string(key) + "\" is " +
                   (config[key].is_number() ? config[key].dump() : quote(config[key].dump(), 40)) +
                   ": mixture-of-experts MLPs are not supported");
    if (f.boolean("use_bidirectional_attention", false))
        f.fail("\"use_bidirectional_attention\" is true, which is not supported (causal attention only)");
    c.n_layer = f.integer("num_hidden_layers", 1, 256);
    c.n_head = f.integer("num_attention_heads", 1, Limits::kMaxHeads);
    c.n_kv_head = f.integer("num_key_value_heads", 1, c.n_head, c.n_head);
    if (c.n_head % c.n_kv_head != 0)
        f.fail("num_attention_heads " + std::to_string(c.n_head) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.n_kv_head));
    c.n_embd = f.integer("hidden_size", 1, Limits::kMaxDModel);
    const int explicit_head_dim = c.family == "qwen3" ? 128 : gemma ? 256 : 0;
    if (!f.has("head_dim") && !explicit_head_dim && c.n_embd % c.n_head != 0)
        f.fail("hidden_size " + std::to_string(c.n_embd) + " is not divisible by num_attention_heads " +
               std::to_string(c.n_head));
    c.head_dim = f.integer("head_dim", 2, Limits::kMaxDModel, explicit_head_dim ? explicit_head_dim : c.n_embd / c.n_head);
    if (c.head_dim % 2 != 0) f.fail("head_dim " + std::to_string(c.head_dim) + " is odd: rotary needs pairs");
    c.n_positions = f.integer("max_position_embeddings", 1, 1 << 24, 2048);
    c.n_positions = std::min(c.n_positions, Limits::kMaxSeqLen);  // longer inputs are refused anyway
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000);
    c.n_inner = f.integer("intermediate_size", 1, 16 * Limits::kMaxDModel);
    c.layer_norm_epsilon = f.number("rms_norm_eps", 0, 1, c.family == "olmo2" || c.family == "phi3" ? 1e-5 : 1e-6);
    if (gemma)
        c.activation = activationOf(f, f.has("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh",
                                    c.activation_name);
    else
        c.activation = activationOf(f, "hidden_act", "silu", c.activation_name);
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", gemma || c.family == "smollm3");
    c.norm = model::NormKind::RmsNorm;
    c.mlp = model::MlpKind::Gated;
    c.position_embedding = false;
    c.stored_dtype = checkpoint::readDtype(f);

    // The rotation: Gemma 3 one per layer type (full: rope_parameters' entry or rope_theta and
    // rope_scaling, 1e6; sliding: its entry or rope_local_base_freq, 10000, never scaled).
    RopeDefaults rope;
    rope.partial_allowed = rope.longrope_allowed = c.family == "phi3";
    if (c.family == "gemma3_text") {
        rope.theta = 1e6;
        checkpoint::applyRope(checkpoint::readRope(f, rope, "full_attention"), c, f);
        if (checkpoint::ropePerLayerType(f)) {
            const checkpoint::RopeSettings local = checkpoint::readRope(f, RopeDefaults{}, "sliding_attention");
            if (local.type != "default") f.fail("the sliding layers' rope_type " + quote(local.type, 40) + " is not supported (default only)");
            c.local_rope_theta = local.theta;
        } else {
            c.local_rope_theta = f.number("rope_local_base_freq", 0, 1e12, 10000.0);
        }
    } else {
        checkpoint::applyRope(checkpoint::readRope(f, rope), c, f);
    }

    std::vector<bool> no_rope;  // SmolLM3: true where a layer does not rotate
    if (c.family == "smollm3") {
        if (f.has("no_rope_layers")) {
            const nlohmann::json& list = config["no_rope_layers"];
            if (!list.is_array() || list.size() != std::size_t(c.n_layer))
                f.fail("\"no_rope_layers\" is not a list of " + std::to_string(c.n_layer) + " entries (1 rotates, 0 does not)");
            for (const nlohmann::json& v : list) {
                if (!v.is_number_integer() || (v != 0 && v != 1))
                    f.fail("\"no_rope_layers\" holds " + quote(v.dump(), 40) + " (1 rotates, 0 does not)");
                no_rope.push_back(v == 0);
            }
        } else {
            const int interval = f.integer("no_rope_layer_interval", 1, 1 << 16, 4);
            for (int l = 0; l < c.n_layer; ++l) no_rope.push_back((l + 1) % interval == 0);
        }
        c.rope_layers.clear();
        for (bool skip : no_rope) c.rope_layers.push_back(!skip);
    }
    readWindows(f, c, no_rope);

    if (gemma) {
        c.query_pre_attn_scalar = f.number("query_pre_attn_scalar", 0, 1e9, 256);
        const bool two = c.family == "gemma2";
        c.attn_logit_softcap = optionalNumber(f, "attn_logit_softcapping", two ? 50.0 : 0.0);
        c.final_logit_softcap = optionalNumber(f, "final_logit_softcapping", two ? 30.0 : 0.0);
        c.embedding_scale = static_cast<float>(std::sqrt(double(c.n_embd)));  // a float buffer in transformers
    }
    if (f.boolean("mlp_bias", false)) f.fail("\"mlp_bias\" is true, which is not supported");
    return c;
}

}  // namespace headscope::io
