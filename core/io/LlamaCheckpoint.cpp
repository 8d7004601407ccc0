// Llama, Mistral and Qwen2 folders (Hugging Face LlamaForCausalLM, MistralForCausalLM,
// Qwen2ForCausalLM; modeling_llama.py is the specification):
//   config.json   hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
//                 num_key_value_heads (num_attention_heads), head_dim (hidden / heads),
//                 hidden_act (silu), max_position_embeddings, rms_norm_eps (1e-6),
//                 rope_theta (10000), rope_scaling (null or type "llama3"), attention_bias
//                 (false; Qwen2: q, k, v biases always), mlp_bias (false), tie_word_embeddings
//                 (false), vocab_size, sliding_window (Mistral; Qwen2 with use_sliding_window)
//   tensors       model.embed_tokens.weight (vocab, d); model.layers.{i}.input_layernorm.weight,
//                 .self_attn.{q,k,v,o}_proj.{weight, bias}, .post_attention_layernorm.weight,
//                 .mlp.{gate,up,down}_proj.weight; model.norm.weight; lm_head.weight (vocab, d)
//                 unless tied; nn.Linear layout (out, in); "model." optional; rotary_emb.inv_freq skipped.
#include <filesystem>
#include <new>

#include "Config.h"
#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/FolderTokenizer.h"
#include "io/IoError.h"
#include "io/Quote.h"

namespace headscope::io {

namespace fs = std::filesystem;
using checkpoint::ConfigFields;
using checkpoint::Source;
using checkpoint::TensorTable;

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

}  // namespace

model::ModelConfig readLlamaConfig(const std::string& path) {
    const nlohmann::json config = checkpoint::readConfigJson(path, "Llama");
    const ConfigFields f(config, path, "Llama");
    model::ModelConfig c;
    c.family = f.string("model_type");
    if (c.family != "llama" && c.family != "mistral" && c.family != "qwen2")
        f.fail("\"model_type\" is " + quote(c.family, 40) + "; this reader takes llama, mistral and qwen2");
    c.n_layer = f.integer("num_hidden_layers", 1, 256);
    c.n_head = f.integer("num_attention_heads", 1, Limits::kMaxHeads);
    c.n_kv_head = f.integer("num_key_value_heads", 1, c.n_head, c.n_head);
    if (c.n_head % c.n_kv_head != 0)
        f.fail("num_attention_heads " + std::to_string(c.n_head) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.n_kv_head));
    c.n_embd = f.integer("hidden_size", 1, Limits::kMaxDModel);
    if (!f.has("head_dim") && c.n_embd % c.n_head != 0)
        f.fail("hidden_size " + std::to_string(c.n_embd) + " is not divisible by num_attention_heads " +
               std::to_string(c.n_head));
    c.head_dim = f.integer("head_dim", 2, Limits::kMaxDModel, c.n_embd / c.n_head);
    if (c.head_dim % 2 != 0) f.fail("head_dim " + std::to_string(c.head_dim) + " is odd: rotary needs pairs");
    c.n_positions = f.integer("max_position_embeddings", 1, 1 << 24, 2048);
    c.n_positions = std::min(c.n_positions, Limits::kMaxSeqLen);  // longer inputs are refused anyway
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000);
    c.n_inner = f.integer("intermediate_size", 1, 16 * Limits::kMaxDModel);
    c.layer_norm_epsilon = f.number("rms_norm_eps", 0, 1, 1e-6);
    c.activation = activationOf(f, "hidden_act", "silu", c.activation_name);
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", false);
    c.norm = model::NormKind::RmsNorm;
    c.mlp = model::MlpKind::Gated;
    c.position_embedding = false;
    c.rotary_dims = c.head_dim;
    c.rope_theta = f.number("rope_theta", 0, 1e12, 10000.0);
    if (f.has("rope_scaling")) {
        const nlohmann::json& scaling = config["rope_scaling"];
        if (!scaling.is_object()) f.fail("\"rope_scaling\" is not an object");
        const ConfigFields s(scaling, path + " rope_scaling", "Llama");
        const std::string type = s.string(s.has("rope_type") ? "rope_type" : "type");
        if (type == "llama3") {
            c.rope_scaling = type;
            c.rope_factor = s.number("factor", 0, 1e6);
            c.rope_low_freq_factor = s.number("low_freq_factor", 0, 1e6);
            c.rope_high_freq_factor = s.number("high_freq_factor", 0, 1e6);
            c.rope_original_max_positions = s.integer("original_max_position_embeddings", 1, 1 << 24);
            if (!(c.rope_high_freq_factor > c.rope_low_freq_factor))
                f.fail("rope_scaling's high_freq_factor must exceed its low_freq_factor");
        } else if (type != "default") {
            f.fail("\"rope_scaling\" of type " + quote(type, 40) + " is not supported (supported: llama3, default)");
        }
    }
    const bool sliding = c.family == "mistral" || f.boolean("use_sliding_window", false);
    if (sliding && f.has("sliding_window")) c.sliding_window = f.integer("sliding_window", 1, 1 << 24);
    if (f.boolean("mlp_bias", false)) f.fail("\"mlp_bias\" is true, which is not supported");
    return c;
}

model::ModelPtr loadLlamaCheckpoint(const std::string& directory, const LoadProgress& progress) {
    ProgressReporter reporter(progress);
    reporter.report(0, "reading config.json");
    const fs::path dir(directory);
    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readLlamaConfig((dir / "config.json").string());
    const bool qwen = c.family == "qwen2";
    const nlohmann::json config = checkpoint::readConfigJson((dir / "config.json").string(), "Llama");
    const bool attention_bias = qwen || (config.contains("attention_bias") && config["attention_bias"] == true);
    const bool output_bias = !qwen && attention_bias;
    model->inverse_frequencies = model::rotaryInverseFrequencies(c);

    checkpoint::TableLayout layout;
    layout.family = c.familyName();
    layout.prefixes = {"model."};
    layout.probe = "embed_tokens.weight";
    layout.block_prefix = "layers.";
    layout.unprefixed = {"lm_head.weight"};
    layout.skip = [](const std::string& name) { return name.find("rotary_emb.inv_freq") != std::string::npos; };
    layout.is_weight = [](const std::string& name) {
        return name.rfind("layers.", 0) == 0 || name.rfind("embed_tokens.", 0) == 0 || name == "norm.weight" ||
               name == "lm_head.weight";
    };
    std::string weights_path = (dir / "model.safetensors").string();
    try {
        TensorTable table(directory, layout, c.n_layer, &reporter);
        weights_path = table.path();
        const std::int64_t d = c.n_embd, inner = c.n_inner, vocab = c.vocab_size, d_k = c.headDim();
        const std::int64_t q_width = c.n_head * d_k, kv_width = c.kvHeads() * d_k;
        const std::string says = "config.json (hidden_size " + std::to_string(d) + ", heads " + std::to_string(c.n_head) +
                                 " and " + std::to_string(c.kvHeads()) + " key/value of head_dim " + std::to_string(d_k) +
                                 ", intermediate_size " + std::to_string(inner) + ", vocab_size " + std::to_string(vocab) + ")";
        struct BlockSources {
            const Source *ln_1, *q, *k, *v, *o, *q_b, *k_b, *v_b, *o_b, *ln_2, *gate, *up, *down;
        };
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& embed = table.get("embed_tokens.weight", {vocab, d}, says);
        std::vector<BlockSources> blocks;
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string p = "layers." + std::to_string(l) + ".";
            const auto bias = [&](const char* name, std::int64_t size, bool present) {
                return present ? &table.get(p + "self_attn." + name + "_proj.bias", {size}, says) : nullptr;
            };
            blocks.push_back({&table.get(p + "input_layernorm.weight", {d}, says),
                              &table.get(p + "self_attn.q_proj.weight", {q_width, d}, says),
                              &table.get(p + "self_attn.k_proj.weight", {kv_width, d}, says),
                              &table.get(p + "self_attn.v_proj.weight", {kv_width, d}, says),
                              &table.get(p + "self_attn.o_proj.weight", {d, q_width}, says),
                              bias("q", q_width, attention_bias), bias("k", kv_width, attention_bias),
                              bias("v", kv_width, attention_bias), bias("o", d, output_bias),
                              &table.get(p + "post_attention_layernorm.weight", {d}, says),
                              &table.get(p + "mlp.gate_proj.weight", {inner, d}, says),
                              &table.get(p + "mlp.up_proj.weight", {inner, d}, says),
                              &table.get(p + "mlp.down_proj.weight", {d, inner}, says)});
        }
        const Source& norm = table.get("norm.weight", {d}, says);
        const Source* lm_head = nullptr;
        if (!c.tie_word_embeddings) {
            if (!table.contains("lm_head.weight"))
                table.fail("config.json says tie_word_embeddings false but there is no 'lm_head.weight'");
            lm_head = &table.get("lm_head.weight", {vocab, d}, says);
        }
        model->dtype = checkpoint::dtypeName(embed.type);

        table.open();
        using Layout = model::LinearWeight::Layout;
        if (embed.type != checkpoint::DType::F32) model->conversion_cache = std::make_shared<model::ConversionCache>();
        model->wte = table.linear(embed, Layout::OutIn, -1, model->conversion_cache);
        int layer = 0;
        for (const BlockSources& s : blocks) {
            model::Block block;
            table.vector(*s.ln_1, block.ln_1.weight);
            model::AttentionWeights& w = block.attention;
            w.heads = c.n_head;
            w.kv_heads = c.kvHeads();
            w.d_k = w.d_v = static_cast<int>(d_k);
            // nn.Linear (out, in), used where they are: q (h*d_k, d), k, v (kv*d_k, d), o (d, h*d_k).
            w.W_Q = table.linear(*s.q, Layout::OutIn, layer, model->conversion_cache);
            w.W_K = table.linear(*s.k, Layout::OutIn, layer, model->conversion_cache);
            w.W_V = table.linear(*s.v, Layout::OutIn, layer, model->conversion_cache);
            w.W_O = table.linear(*s.o, Layout::OutIn, layer, model->conversion_cache);
            if (attention_bias) {
                table.vector(*s.q_b, w.b_Q);
                table.vector(*s.k_b, w.b_K);
                table.vector(*s.v_b, w.b_V);
                if (s.o_b) {
                    table.vector(*s.o_b, w.b_O);
                } else {  // Qwen2: no o_proj bias; the layer takes all four or none
                    w.b_O = Eigen::RowVectorXf::Zero(d);
                    model->zero_biases += d;
                }
            }
            table.vector(*s.ln_2, block.ln_2.weight);
            // nn.Linear (out, in), used where they are: gate, up (inner, d), down (d, inner).
            block.W_gate = table.linear(*s.gate, Layout::OutIn, layer, model->conversion_cache);
            block.W_fc = table.linear(*s.up, Layout::OutIn, layer, model->conversion_cache);
            block.W_proj = table.linear(*s.down, Layout::OutIn, layer, model->conversion_cache);
            model->blocks.push_back(std::move(block));
            ++layer;
            reporter.step(0.05, 0.9, layer, c.n_layer, "mapping layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer));
        }
        table.vector(norm, model->ln_f.weight);
        if (lm_head) model->lm_head = table.linear(*lm_head, Layout::OutIn, -1, model->conversion_cache);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }
    reporter.report(0.9, "reading the tokenizer");
    model->tokenizer = loadFolderTokenizer(directory, c.vocab_size);
    reporter.report(1, "ready");
    return model;
}

}  // namespace headscope::io
