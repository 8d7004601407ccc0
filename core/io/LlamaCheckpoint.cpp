// The Llama-like families' folders (io/LlamaFamily.h says what each changes; config.json in
// io/LlamaConfig.cpp). Each family's modeling_*.py in transformers is the specification.
//   tensors       model.embed_tokens.weight (vocab, d); per layer model.layers.{i}.
//                 self_attn.{q,k,v,o}_proj.{weight, bias} (Phi-3: self_attn.qkv_proj.weight, rows
//                 [Q | K | V]), self_attn.{q,k}_norm.weight (Qwen3, Gemma 3: (d_k); OLMo 2: (h*d_k),
//                 (kv*d_k)), mlp.{gate,up,down}_proj.weight (Phi-3: mlp.gate_up_proj.weight, rows
//                 [gate | up]), and the norms: input_layernorm and post_attention_layernorm (before
//                 the MLP); Gemma: input_, post_attention_, pre_feedforward_ and
//                 post_feedforward_layernorm; OLMo 2: post_attention_ and post_feedforward_layernorm
//                 only; model.norm.weight; lm_head.weight (vocab, d) unless tied. nn.Linear layout
//                 (out, in); "model." optional; rotary_emb.inv_freq skipped. Gemma's norms hold w
//                 for (1 + w): 1 + w is stored. Gemma 3 image-text folders: the same under
//                 language_model.model. (transformers 4) or model.language_model. (5); vision_tower.*
//                 and multi_modal_projector.* are not read.
#include <filesystem>
#include <new>

#include "Config.h"
#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/FolderTokenizer.h"
#include "io/IoError.h"
#include "io/LlamaFamily.h"
#include "io/Quote.h"
#include "io/RopeConfig.h"

namespace headscope::io {

namespace fs = std::filesystem;
using checkpoint::ConfigFields;
using checkpoint::rowsOf;  // a fused tensor's parts as tensors of their own
using checkpoint::Source;
using checkpoint::TensorTable;

model::ModelPtr loadLlamaCheckpoint(const std::string& directory, const LoadProgress& progress) {
    ProgressReporter reporter(progress);
    reporter.report(0, "reading config.json");
    const fs::path dir(directory);
    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readLlamaConfig((dir / "config.json").string());
    const LlamaFamily family = llamaFamily(c.family);
    const std::string config_path = (dir / "config.json").string();
    const nlohmann::json outer = checkpoint::readConfigJson(config_path, "Llama");
    const bool image_text = isImageTextGemma3(outer);
    const nlohmann::json config = textTowerConfig(outer, config_path);
    const bool attention_bias = family.qkv_biases || (config.contains("attention_bias") && config["attention_bias"] == true);
    const bool output_bias = !family.qkv_biases && attention_bias;
    model->inverse_frequencies = model::rotaryInverseFrequencies(c);
    if (c.rope_scaling == "longrope") model->long_inverse_frequencies = model::rotaryInverseFrequencies(c, true);
    if (c.local_rope_theta > 0) {  // Gemma 3's sliding layers: default RoPE with their own theta
        model::ModelConfig local = c;
        local.rope_theta = c.local_rope_theta;
        local.rope_scaling.clear();
        model->local_inverse_frequencies = model::rotaryInverseFrequencies(local);
    }

    checkpoint::TableLayout layout;
    layout.family = c.familyName();
    layout.prefixes = image_text ? std::vector<std::string>{"language_model.model.", "model.language_model."}
                                 : std::vector<std::string>{"model."};
    layout.probe = "embed_tokens.weight";
    layout.block_prefix = "layers.";
    // Gemma 3 image-text: transformers 4 wrote language_model.lm_head.weight, 5 lm_head.weight (both tied as a rule).
    const std::string lm_head_name = image_text && !c.tie_word_embeddings ? "language_model.lm_head.weight" : "lm_head.weight";
    layout.unprefixed = {"lm_head.weight", "language_model.lm_head.weight"};
    layout.skip = [](const std::string& name) { return name.find("rotary_emb.inv_freq") != std::string::npos; };
    layout.is_weight = [](const std::string& name) {
        return name.rfind("layers.", 0) == 0 || name.rfind("embed_tokens.", 0) == 0 || name == "norm.weight" ||
               name == "lm_head.weight" || name == "language_model.lm_head.weight";
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
            const Source *ln_1 = nullptr, *q = nullptr, *k = nullptr, *v = nullptr, *qkv = nullptr, *o = nullptr;
            const Source *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *o_b = nullptr, *q_norm = nullptr, *k_norm = nullptr;
            const Source *ln_2 = nullptr, *attention_out = nullptr, *mlp_out = nullptr;
            const Source *gate = nullptr, *up = nullptr, *gate_up = nullptr, *down = nullptr;
        };
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& embed = table.get("embed_tokens.weight", {vocab, d}, says);
        std::vector<BlockSources> blocks;
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string p = "layers." + std::to_string(l) + ".";
            const auto get = [&](const std::string& name, std::vector<std::int64_t> shape) { return &table.get(p + name, shape, says); };
            BlockSources b;
            const auto bias = [&](const char* name, std::int64_t size, bool present) {
                return present ? get(std::string("self_attn.") + name + "_proj.bias", {size}) : nullptr;
            };
            if (family.fused) {
                b.qkv = get("self_attn.qkv_proj.weight", {q_width + 2 * kv_width, d});
                b.gate_up = get("mlp.gate_up_proj.weight", {2 * inner, d});
            } else {
                b.q = get("self_attn.q_proj.weight", {q_width, d});
                b.k = get("self_attn.k_proj.weight", {kv_width, d});
                b.v = get("self_attn.v_proj.weight", {kv_width, d});
                b.gate = get("mlp.gate_proj.weight", {inner, d});
                b.up = get("mlp.up_proj.weight", {inner, d});
            }
            b.o = get("self_attn.o_proj.weight", {d, q_width});
            b.down = get("mlp.down_proj.weight", {d, inner});
            b.q_b = bias("q", q_width, attention_bias);
            b.k_b = bias("k", kv_width, attention_bias);
            b.v_b = bias("v", kv_width, attention_bias);
            b.o_b = bias("o", d, output_bias);
            if (family.qk_norm == LlamaFamily::QkNorm::PerHead) {
                b.q_norm = get("self_attn.q_norm.weight", {d_k});
                b.k_norm = get("self_attn.k_norm.weight", {d_k});
            } else if (family.qk_norm == LlamaFamily::QkNorm::Whole) {
                b.q_norm = get("self_attn.q_norm.weight", {q_width});
                b.k_norm = get("self_attn.k_norm.weight", {kv_width});
            }
            if (family.post_norms) {  // OLMo 2
                b.attention_out = get("post_attention_layernorm.weight", {d});
                b.mlp_out = get("post_feedforward_layernorm.weight", {d});
            } else if (family.gemma) {
                b.ln_1 = get("input_layernorm.weight", {d});
                b.attention_out = get("post_attention_layernorm.weight", {d});
                b.ln_2 = get("pre_feedforward_layernorm.weight", {d});
                b.mlp_out = get("post_feedforward_layernorm.weight", {d});
            } else {
                b.ln_1 = get("input_layernorm.weight", {d});
                b.ln_2 = get("post_attention_layernorm.weight", {d});
            }
            blocks.push_back(b);
        }
        const Source& norm = table.get("norm.weight", {d}, says);
        const Source* lm_head = nullptr;
        if (!c.tie_word_embeddings) {
            const std::string name = table.contains(lm_head_name) ? lm_head_name : "lm_head.weight";
            if (!table.contains(name))
                table.fail("config.json says tie_word_embeddings false but there is no '" + name + "'");
            lm_head = &table.get(name, {vocab, d}, says);
        }
        model->dtype = checkpoint::dtypeName(embed.type);

        table.open();
        using Layout = model::LinearWeight::Layout;
        if (embed.type != checkpoint::DType::F32) model->conversion_cache = std::make_shared<model::ConversionCache>();
        const auto& cache = model->conversion_cache;
        model->wte = table.linear(embed, Layout::OutIn, -1, cache);
        // A norm's weight; Gemma keeps w for (1 + w) (Gemma2RMSNorm), so 1 + w is stored, in float as it adds.
        const auto normWeight = [&](const Source* s, Eigen::RowVectorXf& out) {
            if (!s) return;
            table.vector(*s, out);
            if (family.gemma) out.array() += 1.0f;
        };
        int layer = 0;
        for (const BlockSources& s : blocks) {
            model::Block block;
            normWeight(s.ln_1, block.ln_1.weight);
            model::AttentionWeights& w = block.attention;
            w.heads = c.n_head;
            w.kv_heads = c.kvHeads();
            w.d_k = w.d_v = static_cast<int>(d_k);
            // nn.Linear (out, in), used where they are: q (h*d_k, d), k, v (kv*d_k, d), o (d, h*d_k).
            if (s.qkv) {
                w.packing = model::QkvPacking::Fused;
                w.W_QKV = table.linear(*s.qkv, Layout::OutIn, layer, cache);
            } else {
                w.W_Q = table.linear(*s.q, Layout::OutIn, layer, cache);
                w.W_K = table.linear(*s.k, Layout::OutIn, layer, cache);
                w.W_V = table.linear(*s.v, Layout::OutIn, layer, cache);
            }
            w.W_O = table.linear(*s.o, Layout::OutIn, layer, cache);
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
            if (s.q_norm) {
                normWeight(s.q_norm, w.q_norm);
                normWeight(s.k_norm, w.k_norm);
                w.qk_norm_per_head = family.qk_norm == LlamaFamily::QkNorm::PerHead;
                w.qk_norm_epsilon = c.layer_norm_epsilon;
            }
            normWeight(s.ln_2, block.ln_2.weight);
            normWeight(s.attention_out, block.attention_out_norm.weight);
            normWeight(s.mlp_out, block.mlp_out_norm.weight);
            // nn.Linear (out, in), used where they are: gate, up (inner, d), down (d, inner).
            if (s.gate_up) {
                block.W_gate = table.linear(rowsOf(*s.gate_up, 0, inner), Layout::OutIn, layer, cache);
                block.W_fc = table.linear(rowsOf(*s.gate_up, inner, inner), Layout::OutIn, layer, cache);
            } else {
                block.W_gate = table.linear(*s.gate, Layout::OutIn, layer, cache);
                block.W_fc = table.linear(*s.up, Layout::OutIn, layer, cache);
            }
            block.W_proj = table.linear(*s.down, Layout::OutIn, layer, cache);
            model->blocks.push_back(std::move(block));
            ++layer;
            reporter.step(0.05, 0.9, layer, c.n_layer, "mapping layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer));
        }
        normWeight(&norm, model->ln_f.weight);
        if (lm_head) model->lm_head = table.linear(*lm_head, Layout::OutIn, -1, cache);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }
    reporter.report(0.9, "reading the tokenizer");
    model->tokenizer = loadFolderTokenizer(directory, c.vocab_size);
    reporter.report(1, "ready");
    return model;
}

}  // namespace headscope::io
