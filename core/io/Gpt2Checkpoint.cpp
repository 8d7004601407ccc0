#include "io/Gpt2Checkpoint.h"

#include <filesystem>
#include <new>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "Config.h"
#include "io/CheckpointFiles.h"
#include "io/IoError.h"
#include "io/Quote.h"
#include "io/RopeConfig.h"
#include "io/FolderTokenizer.h"
#include "text/Gpt2Tokenizer.h"

namespace headscope::io {

namespace fs = std::filesystem;
using nlohmann::json;

using checkpoint::ConfigFields;
using checkpoint::Source;
using checkpoint::TensorTable;

namespace {

checkpoint::TableLayout gpt2Layout() {
    checkpoint::TableLayout layout;
    layout.family = "GPT-2";
    layout.prefixes = {"transformer."};
    layout.probe = "wte.weight";
    layout.block_prefix = "h.";
    layout.unprefixed = {"lm_head.weight"};
    const auto ends = [](const std::string& name, const std::string& suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    // h.{i}.attn.bias / attn.masked_bias: mask buffers, not weights.
    layout.skip = [ends](const std::string& name) {
        return name.rfind("h.", 0) == 0 && (ends(name, ".attn.bias") || ends(name, ".attn.masked_bias"));
    };
    layout.is_weight = [](const std::string& name) {
        return name.rfind("h.", 0) == 0 || name.rfind("wte.", 0) == 0 || name.rfind("wpe.", 0) == 0 ||
               name.rfind("ln_f.", 0) == 0 || name == "lm_head.weight";
    };
    return layout;
}

}  // namespace

model::ModelConfig readGpt2Config(const std::string& path) {
    const json config = checkpoint::readConfigJson(path, "GPT-2");
    const ConfigFields f(config, path, "GPT-2");
    if (config.contains("model_type") && config["model_type"] != "gpt2")
        f.fail("\"model_type\" is " + quote(config["model_type"].dump(), 40) + "; only \"gpt2\" checkpoints can be opened");
    model::ModelConfig c;
    c.family = "gpt2";
    c.n_layer = f.integer("n_layer", 1, 256);
    c.n_head = f.integer("n_head", 1, Limits::kMaxHeads);
    c.n_embd = f.integer("n_embd", 1, Limits::kMaxDModel);
    // Older configs give the context as n_ctx only.
    c.n_positions = f.integer(f.has("n_positions") || !config.contains("n_ctx") ? "n_positions" : "n_ctx", 1,
                              Limits::kMaxSeqLen);
    c.vocab_size = f.integer("vocab_size", 1, 10'000'000);
    c.n_inner = f.integer("n_inner", 1, 16 * Limits::kMaxDModel, 4 * c.n_embd);
    if (c.n_embd % c.n_head != 0)
        f.fail("n_embd " + std::to_string(c.n_embd) + " is not divisible by n_head " + std::to_string(c.n_head));
    c.layer_norm_epsilon = f.number("layer_norm_epsilon", 0, 1, 1e-5);
    c.activation_name = f.string("activation_function", "gelu_new");
    if (c.activation_name == "gelu_new" || c.activation_name == "gelu_pytorch_tanh")
        c.activation = model::Activation::GeluTanh;
    else if (c.activation_name == "gelu")
        c.activation = model::Activation::GeluErf;
    else if (c.activation_name == "relu")
        c.activation = model::Activation::Relu;
    else
        f.fail("\"activation_function\" " + quote(c.activation_name, 40) +
               " is not supported (supported: gelu_new, gelu_pytorch_tanh, gelu, relu)");
    c.scale_attn_weights = f.boolean("scale_attn_weights", true);
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", true);
    c.stored_dtype = checkpoint::readDtype(f);
    if (f.boolean("scale_attn_by_inverse_layer_idx", false))
        f.fail("\"scale_attn_by_inverse_layer_idx\" is true, which is not supported");
    if (f.boolean("add_cross_attention", false))
        f.fail("\"add_cross_attention\" is true: encoder-decoder GPT-2 models are not supported");
    return c;
}

model::ModelPtr loadGpt2Checkpoint(const std::string& directory, const LoadProgress& progress) {
    ProgressReporter reporter(progress);
    reporter.report(0, "reading config.json");
    std::error_code error;
    if (!fs::exists(directory, error))
        throw IoError("cannot open GPT-2 checkpoint '" + directory + "': the directory does not exist");
    if (!fs::is_directory(directory, error))
        throw IoError("cannot open GPT-2 checkpoint '" + directory +
                      "': it is not a directory (give the folder holding config.json and model.safetensors)");
    const fs::path dir(directory);
    // vocab.json and merges.txt come as a pair; a folder with neither reads tokenizer.json or ids.
    const bool vocabulary = fs::exists(dir / "vocab.json", error) || fs::exists(dir / "merges.txt", error);
    for (const char* name : {"config.json", "vocab.json", "merges.txt"})
        if ((vocabulary || std::string(name) == "config.json") && !fs::exists(dir / name, error))
            throw IoError("cannot open GPT-2 checkpoint '" + directory + "': it has no " + name);

    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readGpt2Config((dir / "config.json").string());
    std::string weights_path = (dir / "model.safetensors").string();

    try {
        TensorTable table(directory, gpt2Layout(), c.n_layer, &reporter);
        weights_path = table.path();
        const std::int64_t d = c.n_embd, inner = c.n_inner, vocab = c.vocab_size;
        const std::string config_says = "config.json (n_embd " + std::to_string(d) + ")";
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& wte = table.get("wte.weight", {vocab, d},
                                      "config.json (vocab_size " + std::to_string(vocab) + ", n_embd " + std::to_string(d) + ")");
        const Source& wpe = table.get("wpe.weight", {c.n_positions, d},
                                      "config.json (n_positions " + std::to_string(c.n_positions) + ", n_embd " +
                                          std::to_string(d) + ")");
        struct BlockSources {
            const Source *ln_1_w, *ln_1_b, *attn_w, *attn_b, *proj_w, *proj_b, *ln_2_w, *ln_2_b, *fc_w, *fc_b, *mproj_w, *mproj_b;
        };
        std::vector<BlockSources> blocks;
        const std::string inner_says = "config.json (n_embd " + std::to_string(d) + ", n_inner " + std::to_string(inner) + ")";
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string h = "h." + std::to_string(l) + ".";
            blocks.push_back({&table.get(h + "ln_1.weight", {d}, config_says), &table.get(h + "ln_1.bias", {d}, config_says),
                              &table.get(h + "attn.c_attn.weight", {d, 3 * d}, config_says),
                              &table.get(h + "attn.c_attn.bias", {3 * d}, config_says),
                              &table.get(h + "attn.c_proj.weight", {d, d}, config_says),
                              &table.get(h + "attn.c_proj.bias", {d}, config_says),
                              &table.get(h + "ln_2.weight", {d}, config_says), &table.get(h + "ln_2.bias", {d}, config_says),
                              &table.get(h + "mlp.c_fc.weight", {d, inner}, inner_says),
                              &table.get(h + "mlp.c_fc.bias", {inner}, inner_says),
                              &table.get(h + "mlp.c_proj.weight", {inner, d}, inner_says),
                              &table.get(h + "mlp.c_proj.bias", {d}, config_says)});
        }
        const Source& ln_f_w = table.get("ln_f.weight", {d}, config_says);
        const Source& ln_f_b = table.get("ln_f.bias", {d}, config_says);
        if (!c.tie_word_embeddings && !table.contains("lm_head.weight"))
            table.fail("config.json says tie_word_embeddings false but there is no 'lm_head.weight'");
        const Source* lm_head = table.contains("lm_head.weight")
                                    ? &table.get("lm_head.weight", {vocab, d}, "config.json (vocab_size " + std::to_string(vocab) + ", n_embd " + std::to_string(d) + ")")
                                    : nullptr;
        model->dtype = checkpoint::dtypeName(wte.type);

        table.open();
        using Layout = model::LinearWeight::Layout;
        if (wte.type != checkpoint::DType::F32) model->conversion_cache = std::make_shared<model::ConversionCache>();
        const auto vector = [&](const Source* s, Eigen::RowVectorXf& out) { table.vector(*s, out); };
        model->wte = table.linear(wte, Layout::OutIn, -1, model->conversion_cache);
        table.columns(wpe, model->wpe_t);
        int layer = 0;
        const int heads = c.n_head, d_k = c.headDim();
        for (const BlockSources& s : blocks) {
            model::Block block;
            vector(s.ln_1_w, block.ln_1.weight);
            vector(s.ln_1_b, block.ln_1.bias);
            model::AttentionWeights& w = block.attention;
            w.heads = w.kv_heads = heads;
            w.d_k = w.d_v = d_k;
            // Conv1D (in, out), used where they are: c_attn (d, 3d) -> [Q | K | V] columns of
            // x W_QKV^T, c_proj (d, d) -> W_O.
            w.packing = model::QkvPacking::Fused;
            w.W_QKV = table.linear(*s.attn_w, Layout::InOut, layer, model->conversion_cache);
            w.W_O = table.linear(*s.proj_w, Layout::InOut, layer, model->conversion_cache);
            Eigen::RowVectorXf qkv_bias;
            vector(s.attn_b, qkv_bias);  // (3d) = [b_Q | b_K | b_V]
            w.b_Q = qkv_bias.segment(0, d);
            w.b_K = qkv_bias.segment(d, d);
            w.b_V = qkv_bias.segment(2 * d, d);
            vector(s.proj_b, w.b_O);
            vector(s.ln_2_w, block.ln_2.weight);
            vector(s.ln_2_b, block.ln_2.bias);
            // Conv1D (in, out): c_fc (d, inner), c_proj (inner, d), used where they are.
            block.W_fc = table.linear(*s.fc_w, Layout::InOut, layer, model->conversion_cache);
            vector(s.fc_b, block.b_fc);
            block.W_proj = table.linear(*s.mproj_w, Layout::InOut, layer, model->conversion_cache);
            vector(s.mproj_b, block.b_proj);
            model->blocks.push_back(std::move(block));
            ++layer;
            reporter.step(0.05, 0.9, layer, c.n_layer, "mapping layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer));
        }
        vector(&ln_f_w, model->ln_f.weight);
        vector(&ln_f_b, model->ln_f.bias);
        if (lm_head) model->lm_head = table.linear(*lm_head, Layout::OutIn, -1, model->conversion_cache);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }

    reporter.report(0.9, "reading the tokenizer");
    if (!vocabulary) {  // tokenizer.json, or none: read from ids
        model->tokenizer = loadFolderTokenizer(directory, c.vocab_size);
        reporter.report(1, "ready");
        return model;
    }
    std::shared_ptr<const text::Gpt2Tokenizer> tokenizer;
    try {
        tokenizer = std::make_shared<const text::Gpt2Tokenizer>(
            text::Gpt2Tokenizer::fromFiles((dir / "vocab.json").string(), (dir / "merges.txt").string()));
    } catch (const std::invalid_argument& e) {
        throw IoError("cannot read vocabulary '" + (dir / "vocab.json").string() + "': " + e.what());
    }
    if (tokenizer->idLimit() > c.vocab_size) {
        const int id = tokenizer->idLimit() - 1;
        throw IoError("cannot open GPT-2 checkpoint '" + directory + "': vocab.json has token id " + std::to_string(id) +
                      " (" + quote(tokenizer->vocabString(id)) + ") but config.json says vocab_size " +
                      std::to_string(c.vocab_size));
    }
    model->tokenizer = std::move(tokenizer);
    reporter.report(1, "ready");
    return model;
}

}  // namespace headscope::io
