// GPT-NeoX folders (Pythia; Hugging Face GPTNeoXForCausalLM, modeling_gpt_neox.py is the
// specification):
//   config.json   hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
//                 rope_parameters (transformers 5: partial_rotary_factor, rope_theta) or rotary_pct
//                 (0.25), rotary_emb_base (or rope_theta; 10000) (io/RopeConfig.h), max_position_embeddings,
//                 layer_norm_eps (1e-5), use_parallel_residual (true), hidden_act (gelu),
//                 attention_bias (true), tie_word_embeddings (false), vocab_size
//   tensors       gpt_neox.embed_in.weight (vocab, d); gpt_neox.layers.{i}.{input,post_attention}_layernorm.{weight,bias},
//                 .attention.query_key_value.{weight (3d, d), bias (3d)} whose rows are grouped per
//                 head: viewed as (heads, 3, d_k), head h's query, key and value rows follow each
//                 other; .attention.dense.{weight, bias}; .mlp.dense_h_to_4h.*, .mlp.dense_4h_to_h.*;
//                 gpt_neox.final_layer_norm.*; embed_out.weight (vocab, d). "gpt_neox." optional.
//                 Buffers skipped: attention.rotary_emb.inv_freq, attention.bias, attention.masked_bias.
#include <filesystem>
#include <new>

#include "Config.h"
#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/FolderTokenizer.h"
#include "io/IoError.h"
#include "io/Quote.h"
#include "io/RopeConfig.h"

namespace headscope::io {

namespace fs = std::filesystem;
using checkpoint::ConfigFields;
using checkpoint::Source;
using checkpoint::TensorTable;

model::ModelConfig readNeoxConfig(const std::string& path) {
    const nlohmann::json config = checkpoint::readConfigJson(path, "GPT-NeoX");
    const ConfigFields f(config, path, "GPT-NeoX");
    model::ModelConfig c;
    c.family = f.string("model_type");
    if (c.family != "gpt_neox") f.fail("\"model_type\" is " + quote(c.family, 40) + "; this reader takes gpt_neox");
    c.n_layer = f.integer("num_hidden_layers", 1, 256);
    c.n_head = f.integer("num_attention_heads", 1, Limits::kMaxHeads);
    c.n_embd = f.integer("hidden_size", 1, Limits::kMaxDModel);
    if (c.n_embd % c.n_head != 0)
        f.fail("hidden_size " + std::to_string(c.n_embd) + " is not divisible by num_attention_heads " +
               std::to_string(c.n_head));
    c.n_positions = std::min(f.integer("max_position_embeddings", 1, 1 << 24, 2048), Limits::kMaxSeqLen);
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000);
    c.n_inner = f.integer("intermediate_size", 1, 16 * Limits::kMaxDModel, 4 * c.n_embd);
    c.layer_norm_epsilon = f.number("layer_norm_eps", 0, 1, 1e-5);
    c.activation_name = f.string("hidden_act", "gelu");
    if (c.activation_name == "gelu")
        c.activation = model::Activation::GeluErf;
    else if (c.activation_name == "gelu_new" || c.activation_name == "gelu_pytorch_tanh" || c.activation_name == "gelu_fast")
        c.activation = model::Activation::GeluTanh;
    else if (c.activation_name == "relu")
        c.activation = model::Activation::Relu;
    else
        f.fail("\"hidden_act\" " + quote(c.activation_name, 40) +
               " is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu)");
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", false);
    c.parallel_residual = f.boolean("use_parallel_residual", true);
    c.norm = model::NormKind::LayerNorm;
    c.mlp = model::MlpKind::Plain;
    c.position_embedding = false;
    checkpoint::RopeDefaults rope;
    rope.partial_rotary_factor = 0.25;
    rope.neox_keys = true;
    rope.partial_allowed = true;
    checkpoint::applyRope(checkpoint::readRope(f, rope), c, f);
    c.stored_dtype = checkpoint::readDtype(f);
    if (!f.boolean("attention_bias", true)) f.fail("\"attention_bias\" is false, which is not supported for gpt_neox");
    return c;
}

model::ModelPtr loadNeoxCheckpoint(const std::string& directory, const LoadProgress& progress) {
    ProgressReporter reporter(progress);
    reporter.report(0, "reading config.json");
    const fs::path dir(directory);
    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readNeoxConfig((dir / "config.json").string());
    model->inverse_frequencies = model::rotaryInverseFrequencies(c);

    checkpoint::TableLayout layout;
    layout.family = "GPT-NeoX";
    layout.prefixes = {"gpt_neox."};
    layout.probe = "embed_in.weight";
    layout.block_prefix = "layers.";
    layout.unprefixed = {"embed_out.weight"};
    const auto ends = [](const std::string& name, const std::string& suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    layout.skip = [ends](const std::string& name) {
        return ends(name, ".rotary_emb.inv_freq") || ends(name, ".attention.bias") || ends(name, ".attention.masked_bias");
    };
    layout.is_weight = [](const std::string& name) {
        return name.rfind("layers.", 0) == 0 || name.rfind("embed_in.", 0) == 0 || name.rfind("final_layer_norm.", 0) == 0 ||
               name == "embed_out.weight";
    };
    std::string weights_path = (dir / "model.safetensors").string();
    try {
        TensorTable table(directory, layout, c.n_layer, &reporter);
        weights_path = table.path();
        const std::int64_t d = c.n_embd, inner = c.n_inner, vocab = c.vocab_size, d_k = c.headDim();
        const std::string says = "config.json (hidden_size " + std::to_string(d) + ", intermediate_size " +
                                 std::to_string(inner) + ", vocab_size " + std::to_string(vocab) + ")";
        struct BlockSources {
            const Source *ln_1_w, *ln_1_b, *qkv_w, *qkv_b, *dense_w, *dense_b, *ln_2_w, *ln_2_b, *fc_w, *fc_b, *proj_w, *proj_b;
        };
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& embed = table.get("embed_in.weight", {vocab, d}, says);
        std::vector<BlockSources> blocks;
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string p = "layers." + std::to_string(l) + ".";
            blocks.push_back({&table.get(p + "input_layernorm.weight", {d}, says),
                              &table.get(p + "input_layernorm.bias", {d}, says),
                              &table.get(p + "attention.query_key_value.weight", {3 * d, d}, says),
                              &table.get(p + "attention.query_key_value.bias", {3 * d}, says),
                              &table.get(p + "attention.dense.weight", {d, d}, says),
                              &table.get(p + "attention.dense.bias", {d}, says),
                              &table.get(p + "post_attention_layernorm.weight", {d}, says),
                              &table.get(p + "post_attention_layernorm.bias", {d}, says),
                              &table.get(p + "mlp.dense_h_to_4h.weight", {inner, d}, says),
                              &table.get(p + "mlp.dense_h_to_4h.bias", {inner}, says),
                              &table.get(p + "mlp.dense_4h_to_h.weight", {d, inner}, says),
                              &table.get(p + "mlp.dense_4h_to_h.bias", {d}, says)});
        }
        const Source& ln_f_w = table.get("final_layer_norm.weight", {d}, says);
        const Source& ln_f_b = table.get("final_layer_norm.bias", {d}, says);
        const Source* embed_out = nullptr;
        if (!c.tie_word_embeddings) {
            if (!table.contains("embed_out.weight"))
                table.fail("config.json says tie_word_embeddings false but there is no 'embed_out.weight'");
            embed_out = &table.get("embed_out.weight", {vocab, d}, says);
        }
        model->dtype = checkpoint::dtypeName(embed.type);

        table.open();
        using Layout = model::LinearWeight::Layout;
        if (embed.type != checkpoint::DType::F32) model->conversion_cache = std::make_shared<model::ConversionCache>();
        model->wte = table.linear(embed, Layout::OutIn, -1, model->conversion_cache);
        int layer = 0;
        for (const BlockSources& s : blocks) {
            model::Block block;
            table.vector(*s.ln_1_w, block.ln_1.weight);
            table.vector(*s.ln_1_b, block.ln_1.bias);
            model::AttentionWeights& w = block.attention;
            w.heads = w.kv_heads = c.n_head;
            w.d_k = w.d_v = static_cast<int>(d_k);
            // nn.Linear (out, in), used where they are: query_key_value (3d, d) with rows grouped
            // per head (h, 3, d_k), dense (d, d) -> W_O.
            w.packing = model::QkvPacking::FusedPerHead;
            w.W_QKV = table.linear(*s.qkv_w, Layout::OutIn, layer, model->conversion_cache);
            w.W_O = table.linear(*s.dense_w, Layout::OutIn, layer, model->conversion_cache);
            Eigen::RowVectorXf qkv_bias;
            table.vector(*s.qkv_b, qkv_bias);  // (3d) grouped (h, 3, d_k)
            w.b_Q.resize(d);
            w.b_K.resize(d);
            w.b_V.resize(d);
            for (int h = 0; h < c.n_head; ++h) {
                const Eigen::Index row = 3 * h * d_k, col = h * d_k;
                w.b_Q.segment(col, d_k) = qkv_bias.segment(row, d_k);
                w.b_K.segment(col, d_k) = qkv_bias.segment(row + d_k, d_k);
                w.b_V.segment(col, d_k) = qkv_bias.segment(row + 2 * d_k, d_k);
            }
            table.vector(*s.dense_b, w.b_O);
            table.vector(*s.ln_2_w, block.ln_2.weight);
            table.vector(*s.ln_2_b, block.ln_2.bias);
            // nn.Linear (out, in), used where they are: dense_h_to_4h (inner, d), dense_4h_to_h (d, inner).
            block.W_fc = table.linear(*s.fc_w, Layout::OutIn, layer, model->conversion_cache);
            table.vector(*s.fc_b, block.b_fc);
            block.W_proj = table.linear(*s.proj_w, Layout::OutIn, layer, model->conversion_cache);
            table.vector(*s.proj_b, block.b_proj);
            model->blocks.push_back(std::move(block));
            ++layer;
            reporter.step(0.05, 0.9, layer, c.n_layer, "mapping layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer));
        }
        table.vector(ln_f_w, model->ln_f.weight);
        table.vector(ln_f_b, model->ln_f.bias);
        if (embed_out) model->lm_head = table.linear(*embed_out, Layout::OutIn, -1, model->conversion_cache);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }
    reporter.report(0.9, "reading the tokenizer");
    model->tokenizer = loadFolderTokenizer(directory, c.vocab_size);
    reporter.report(1, "ready");
    return model;
}

}  // namespace headscope::io
