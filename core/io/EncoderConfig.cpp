// config.json of the masked-language-model encoders (../shared/reference/hf-families.md section 6;
// each family's configuration_*.py gives the defaults):
//   bert, roberta  hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
//                  hidden_act (gelu), max_position_embeddings (512), type_vocab_size (2),
//                  layer_norm_eps (1e-12), pad_token_id (BERT 0, RoBERTa 1: its positions start
//                  past it), tie_word_embeddings (true), vocab_size; position_embedding_type other
//                  than "absolute" and is_decoder are refused
//   distilbert     dim, n_layers, n_heads, hidden_dim (or the hidden_size ... aliases), activation
//                  (gelu), max_position_embeddings (512); LayerNorm eps 1e-12 (fixed in the code)
//   modernbert     hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
//                  hidden_activation and classifier_activation (gelu), max_position_embeddings
//                  (8192), norm_eps (1e-5), local_attention (128: the band |q - k| <= 64 on the
//                  local layers), layer_types or global_attn_every_n_layers (3: layers 0, 3, 6 ...
//                  global), the rotation per layer type (rope_parameters nested, or
//                  global_rope_theta 160000 and local_rope_theta 10000), norm_bias, attention_bias,
//                  mlp_bias (false), decoder_bias (true), classifier_bias (false)
#include <stdexcept>

#include "Config.h"
#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/EncoderFamily.h"
#include "io/Quote.h"
#include "io/RopeConfig.h"

namespace headscope::io {

using checkpoint::ConfigFields;

const std::vector<std::string>& encoderFamilyTypes() {
    static const std::vector<std::string> types = {"bert", "roberta", "distilbert", "modernbert"};
    return types;
}

namespace {

model::Activation encoderActivation(const ConfigFields& f, const std::string& key, std::string& name) {
    name = f.string(key, "gelu");
    if (name == "gelu") return model::Activation::GeluErf;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh") return model::Activation::GeluTanh;
    if (name == "relu") return model::Activation::Relu;
    if (name == "silu" || name == "swish") return model::Activation::Silu;
    f.fail("\"" + key + "\" " + quote(name, 40) + " is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu, silu)");
}

void readBertLike(const ConfigFields& f, model::ModelConfig& c) {
    const bool roberta = c.family == "roberta";
    if (f.boolean("is_decoder", false)) f.fail("\"is_decoder\" is true: HeadScope opens this family as an encoder only");
    const std::string positions = f.string("position_embedding_type", "absolute");
    if (positions != "absolute")
        f.fail("\"position_embedding_type\" " + quote(positions, 40) + " is not supported (absolute only)");
    c.n_layer = f.integer("num_hidden_layers", 1, 256, 12);
    c.n_head = f.integer("num_attention_heads", 1, Limits::kMaxHeads, 12);
    c.n_embd = f.integer("hidden_size", 1, Limits::kMaxDModel, 768);
    c.n_inner = f.integer("intermediate_size", 1, 16 * Limits::kMaxDModel, 3072);
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000, roberta ? 50265 : 30522);
    c.activation = encoderActivation(f, "hidden_act", c.activation_name);
    if (roberta && c.activation_name != "gelu")  // RobertaLMHead applies gelu whatever hidden_act says
        f.fail("\"hidden_act\" " + quote(c.activation_name, 40) + " is not supported for roberta (its LM head uses gelu)");
    c.layer_norm_epsilon = f.number("layer_norm_eps", 0, 1, 1e-12);
    c.type_vocab_size = f.integer("type_vocab_size", 0, 1 << 16, 2);
    const int max_positions = f.integer("max_position_embeddings", 1, 1 << 24, 512);
    if (roberta) {
        c.padding_position_id = f.integer("pad_token_id", 0, 1 << 24, 1);
        c.n_positions = max_positions - c.padding_position_id - 1;
        if (c.n_positions < 1)  // RoBERTa's positions start past its padding id
            f.fail("max_position_embeddings " + std::to_string(max_positions) + " leaves no position past the padding id " +
                   std::to_string(c.padding_position_id));
    } else {
        c.n_positions = max_positions;
    }
    c.post_norm = true;
    c.mlp = model::MlpKind::Plain;
}

void readDistilBert(const ConfigFields& f, model::ModelConfig& c) {
    const auto either = [&](const char* key, const char* alias, int low, int high, int fallback) {
        return f.integer(f.has(key) || !f.has(alias) ? key : alias, low, high, fallback);
    };
    c.n_layer = either("n_layers", "num_hidden_layers", 1, 256, 6);
    c.n_head = either("n_heads", "num_attention_heads", 1, Limits::kMaxHeads, 12);
    c.n_embd = either("dim", "hidden_size", 1, Limits::kMaxDModel, 768);
    c.n_inner = f.integer("hidden_dim", 1, 16 * Limits::kMaxDModel, 4 * c.n_embd);
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000, 30522);
    c.activation = encoderActivation(f, "activation", c.activation_name);
    c.layer_norm_epsilon = 1e-12;  // nn.LayerNorm(eps=1e-12) in modeling_distilbert.py
    c.n_positions = f.integer("max_position_embeddings", 1, 1 << 24, 512);
    c.post_norm = true;
    c.mlp = model::MlpKind::Plain;
}

void readModernBert(const ConfigFields& f, model::ModelConfig& c) {
    c.n_layer = f.integer("num_hidden_layers", 1, 256, 22);
    c.n_head = f.integer("num_attention_heads", 1, Limits::kMaxHeads, 12);
    c.n_embd = f.integer("hidden_size", 1, Limits::kMaxDModel, 768);
    c.n_inner = f.integer("intermediate_size", 1, 16 * Limits::kMaxDModel, 1152);
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000, 50368);
    c.activation = encoderActivation(f, "hidden_activation", c.activation_name);
    std::string head_activation;
    encoderActivation(f, "classifier_activation", head_activation);
    if (head_activation != c.activation_name)
        f.fail("\"classifier_activation\" " + quote(head_activation, 40) + " differs from \"hidden_activation\" " +
               quote(c.activation_name, 40) + ", which is not supported");
    c.layer_norm_epsilon = f.number("norm_eps", 0, 1, 1e-5);
    c.n_positions = f.integer("max_position_embeddings", 1, 1 << 24, 8192);
    c.mlp = model::MlpKind::Gated;  // Wo(act(input) * gate), [input | gate] = Wi x
    c.position_embedding = false;
    // Local layers: the band |q - k| <= local_attention / 2 (transformers' sliding_window property).
    const int local = f.integer("local_attention", 2, 1 << 24, 128);
    c.sliding_window = local / 2;
    const int every = f.integer("global_attn_every_n_layers", 1, 1 << 16, 3);
    std::vector<bool> sliding(std::size_t(c.n_layer));
    for (int l = 0; l < c.n_layer; ++l) sliding[std::size_t(l)] = l % every != 0;  // layers 0, every, 2 every ... are global
    checkpoint::readLayerTypes(f, sliding, c);
    // The rotation: one per layer type, default RoPE on the whole head.
    checkpoint::RopeDefaults rope;
    rope.theta = 160000;
    if (checkpoint::ropePerLayerType(f)) {
        checkpoint::applyRope(checkpoint::readRope(f, rope, "full_attention"), c, f);
        const checkpoint::RopeSettings local_rope = checkpoint::readRope(f, checkpoint::RopeDefaults{}, "sliding_attention");
        if (local_rope.type != "default")
            f.fail("the local layers' rope_type " + quote(local_rope.type, 40) + " is not supported (default only)");
        c.local_rope_theta = local_rope.theta;
    } else {
        rope.theta = f.number("global_rope_theta", 0, 1e12, 160000.0);
        checkpoint::applyRope(checkpoint::readRope(f, rope), c, f);
        c.local_rope_theta = f.number("local_rope_theta", 0, 1e12, 10000.0);
    }
    if (!c.rope_scaling.empty()) f.fail("rope_type " + quote(c.rope_scaling, 40) + " is not supported for modernbert (default only)");
    if (c.n_embd % c.n_head == 0 && (c.n_embd / c.n_head) % 2 != 0)
        f.fail("the head size " + std::to_string(c.n_embd / c.n_head) + " is odd: rotary positions turn pairs");
}

}  // namespace

model::ModelConfig readEncoderConfig(const std::string& path) {
    const nlohmann::json config = checkpoint::readConfigJson(path, "encoder");
    const ConfigFields f(config, path, "encoder");
    model::ModelConfig c;
    c.family = f.string("model_type");
    if (c.family == "bert" || c.family == "roberta")
        readBertLike(f, c);
    else if (c.family == "distilbert")
        readDistilBert(f, c);
    else if (c.family == "modernbert")
        readModernBert(f, c);
    else
        f.fail("\"model_type\" is " + quote(c.family, 40) + "; this reader takes bert, roberta, distilbert and modernbert");
    if (c.n_embd % c.n_head != 0)
        f.fail("the hidden size " + std::to_string(c.n_embd) + " is not divisible by the " + std::to_string(c.n_head) + " heads");
    c.n_positions = std::min(c.n_positions, Limits::kMaxSeqLen);
    c.encoder = true;
    c.norm = model::NormKind::LayerNorm;
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", true);
    c.stored_dtype = checkpoint::readDtype(f);
    return c;
}

}  // namespace headscope::io
