// The masked-language-model encoders' folders (*ForMaskedLM; modeling_bert.py, modeling_roberta.py,
// modeling_distilbert.py, modeling_modernbert.py are the specification; hf-families.md section 6):
//   bert, roberta  {bert,roberta}.embeddings.{word_embeddings, position_embeddings,
//                  token_type_embeddings, LayerNorm}; .encoder.layer.{i}.attention.self.{query,key,
//                  value}, .attention.output.{dense, LayerNorm}, .intermediate.dense,
//                  .output.{dense, LayerNorm}; head cls.predictions.{transform.dense,
//                  transform.LayerNorm, bias} (RoBERTa: lm_head.{dense, layer_norm, bias})
//   distilbert     distilbert.embeddings.{word_embeddings, position_embeddings, LayerNorm};
//                  .transformer.layer.{i}.attention.{q,k,v,out}_lin, .sa_layer_norm, .ffn.lin{1,2},
//                  .output_layer_norm; head vocab_transform, vocab_layer_norm, vocab_projector.bias
//   modernbert     model.embeddings.{tok_embeddings, norm}; model.layers.{i}.attn_norm (not in layer
//                  0), .attn.Wqkv (3d, d) rows [Q | K | V], .attn.Wo, .mlp_norm, .mlp.Wi (2 inner, d)
//                  rows [input | gate], .mlp.Wo; model.final_norm; head head.{dense, norm}, decoder.bias
// nn.Linear (out, in) with biases (ModernBERT: none unless its *_bias keys say so); LayerNorms named
// weight/bias or, in old folders, gamma/beta. The output embedding is the word embeddings (tied) or
// the head's decoder.weight. The family's prefix is optional.
#include <filesystem>
#include <new>

#include "io/Checkpoint.h"
#include "io/CheckpointFiles.h"
#include "io/FolderTokenizer.h"
#include "io/IoError.h"

namespace headscope::io {

namespace fs = std::filesystem;
using checkpoint::rowsOf;  // a fused tensor's parts as tensors of their own
using checkpoint::Source;
using checkpoint::TensorTable;
using Layout = model::LinearWeight::Layout;

namespace {

// Where each family keeps its tensors (names after the prefix).
struct EncoderNames {
    std::string prefix, embeddings, words, positions, types, embedding_norm, layers;
    std::string query, key, value, qkv, out, attention_norm, input_norm, mlp_in, mlp_out, mlp_norm, final_norm;
    std::string head_dense, head_norm, output_bias, decoder;
};

EncoderNames namesOf(const std::string& family) {
    EncoderNames n;
    if (family == "bert" || family == "roberta") {
        n.prefix = family + ".";
        n.embeddings = "embeddings.";
        n.words = "word_embeddings.weight", n.positions = "position_embeddings.weight";
        n.types = "token_type_embeddings.weight", n.embedding_norm = "LayerNorm.";
        n.layers = "encoder.layer.";
        n.query = "attention.self.query.", n.key = "attention.self.key.", n.value = "attention.self.value.";
        n.out = "attention.output.dense.", n.attention_norm = "attention.output.LayerNorm.";
        n.mlp_in = "intermediate.dense.", n.mlp_out = "output.dense.", n.mlp_norm = "output.LayerNorm.";
        if (family == "bert") {
            n.head_dense = "cls.predictions.transform.dense.", n.head_norm = "cls.predictions.transform.LayerNorm.";
            n.output_bias = "cls.predictions.bias", n.decoder = "cls.predictions.decoder.weight";
        } else {
            n.head_dense = "lm_head.dense.", n.head_norm = "lm_head.layer_norm.";
            n.output_bias = "lm_head.bias", n.decoder = "lm_head.decoder.weight";
        }
    } else if (family == "distilbert") {
        n.prefix = "distilbert.";
        n.embeddings = "embeddings.";
        n.words = "word_embeddings.weight", n.positions = "position_embeddings.weight", n.embedding_norm = "LayerNorm.";
        n.layers = "transformer.layer.";
        n.query = "attention.q_lin.", n.key = "attention.k_lin.", n.value = "attention.v_lin.", n.out = "attention.out_lin.";
        n.attention_norm = "sa_layer_norm.", n.mlp_in = "ffn.lin1.", n.mlp_out = "ffn.lin2.", n.mlp_norm = "output_layer_norm.";
        n.head_dense = "vocab_transform.", n.head_norm = "vocab_layer_norm.";
        n.output_bias = "vocab_projector.bias", n.decoder = "vocab_projector.weight";
    } else {  // modernbert
        n.prefix = "model.";
        n.embeddings = "embeddings.";
        n.words = "tok_embeddings.weight", n.embedding_norm = "norm.";
        n.layers = "layers.";
        n.qkv = "attn.Wqkv.", n.out = "attn.Wo.", n.input_norm = "attn_norm.";
        n.mlp_in = "mlp.Wi.", n.mlp_out = "mlp.Wo.", n.mlp_norm = "mlp_norm.", n.final_norm = "final_norm.";
        n.head_dense = "head.dense.", n.head_norm = "head.norm.", n.output_bias = "decoder.bias", n.decoder = "decoder.weight";
    }
    return n;
}

}  // namespace

model::ModelPtr loadEncoderCheckpoint(const std::string& directory, const LoadProgress& progress) {
    ProgressReporter reporter(progress);
    reporter.report(0, "reading config.json");
    const fs::path dir(directory);
    auto model = std::make_shared<model::Model>();
    model->directory = directory;
    model::ModelConfig& c = model->config;
    c = readEncoderConfig((dir / "config.json").string());
    const nlohmann::json config = checkpoint::readConfigJson((dir / "config.json").string(), "encoder");
    const bool modern = c.family == "modernbert";
    const auto flag = [&](const char* key, bool fallback) { return config.contains(key) && config[key].is_boolean() ? config[key].get<bool>() : fallback; };
    // ModernBERT's optional biases; the BERT family has them all.
    const bool norm_bias = !modern || flag("norm_bias", false), attention_bias = !modern || flag("attention_bias", false);
    const bool mlp_bias = !modern || flag("mlp_bias", false), head_bias = !modern || flag("classifier_bias", false);
    const bool output_bias = !modern || flag("decoder_bias", true);
    const EncoderNames names = namesOf(c.family);

    checkpoint::TableLayout layout;
    layout.family = c.familyName();
    layout.prefixes = {names.prefix};
    layout.probe = names.embeddings + names.words;
    layout.block_prefix = names.layers;
    layout.unprefixed = {names.head_dense + "weight", names.head_dense + "bias", names.head_norm + "weight",
                         names.head_norm + "bias", names.head_norm + "gamma", names.head_norm + "beta", names.output_bias, names.decoder};
    layout.skip = [](const std::string& name) { return name.find("position_ids") != std::string::npos; };  // a buffer
    layout.is_weight = [&](const std::string& name) { return name.rfind(names.layers, 0) == 0 || name.rfind(names.embeddings, 0) == 0; };
    std::string weights_path = (dir / "model.safetensors").string();
    try {
        TensorTable table(directory, layout, c.n_layer, &reporter);
        weights_path = table.path();
        const std::int64_t d = c.n_embd, inner = c.n_inner, vocab = c.vocab_size;
        const std::string says = "config.json (hidden size " + std::to_string(d) + ", intermediate size " + std::to_string(inner) +
                                 ", vocabulary " + std::to_string(vocab) + ")";
        const auto get = [&](const std::string& name, std::vector<std::int64_t> shape) { return &table.get(name, shape, says); };
        // A LayerNorm: weight and bias, or gamma and beta in old folders; `bias` false: weight only (ModernBERT).
        struct NormSources {
            const Source *weight = nullptr, *bias = nullptr;
        };
        const auto norm = [&](const std::string& p, bool bias) {
            const bool old = !table.contains(p + "weight") && table.contains(p + "gamma");
            return NormSources{get(p + (old ? "gamma" : "weight"), {d}), bias ? get(p + (old ? "beta" : "bias"), {d}) : nullptr};
        };
        if (!table.contains(names.head_dense + "weight"))
            table.fail("it has no masked-language-model head ('" + names.head_dense + "weight'): open a *ForMaskedLM checkpoint");
        struct BlockSources {
            const Source *q = nullptr, *k = nullptr, *v = nullptr, *qkv = nullptr, *o = nullptr;
            const Source *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *qkv_b = nullptr, *o_b = nullptr;
            const Source *in = nullptr, *in_b = nullptr, *out = nullptr, *out_b = nullptr;
            NormSources input_norm, attention_norm, mlp_norm;
        };
        // Every shape is checked before any data is read or any matrix allocated.
        const Source& words = *get(names.embeddings + names.words, {vocab, d});
        const std::int64_t position_rows = config.value("max_position_embeddings", 512);  // n_positions may be capped
        const Source* positions = names.positions.empty() ? nullptr : get(names.embeddings + names.positions, {position_rows, d});
        const Source* types = c.type_vocab_size > 0 && !names.types.empty()
                                  ? get(names.embeddings + names.types, {c.type_vocab_size, d}) : nullptr;
        const NormSources embedding_norm = norm(names.embeddings + names.embedding_norm, norm_bias);
        std::vector<BlockSources> blocks;
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string p = names.layers + std::to_string(l) + ".";
            BlockSources b;
            if (modern) {
                b.qkv = get(p + names.qkv + "weight", {3 * d, d});
                if (attention_bias) b.qkv_b = get(p + names.qkv + "bias", {3 * d});
                if (l > 0) b.input_norm = norm(p + names.input_norm, norm_bias);  // layer 0: none (Identity)
                b.mlp_norm = norm(p + names.mlp_norm, norm_bias);
                b.in = get(p + names.mlp_in + "weight", {2 * inner, d});
            } else {
                b.q = get(p + names.query + "weight", {d, d}), b.q_b = get(p + names.query + "bias", {d});
                b.k = get(p + names.key + "weight", {d, d}), b.k_b = get(p + names.key + "bias", {d});
                b.v = get(p + names.value + "weight", {d, d}), b.v_b = get(p + names.value + "bias", {d});
                b.attention_norm = norm(p + names.attention_norm, true);
                b.mlp_norm = norm(p + names.mlp_norm, true);
                b.in = get(p + names.mlp_in + "weight", {inner, d});
            }
            b.o = get(p + names.out + "weight", {d, d});
            if (attention_bias) b.o_b = get(p + names.out + "bias", {d});
            if (mlp_bias) b.in_b = get(p + names.mlp_in + "bias", {modern ? 2 * inner : inner});
            b.out = get(p + names.mlp_out + "weight", {d, inner});
            if (mlp_bias) b.out_b = get(p + names.mlp_out + "bias", {d});
            blocks.push_back(b);
        }
        const NormSources final_norm = modern ? norm(names.final_norm, norm_bias) : NormSources{};
        const Source* head_dense = &table.get(names.head_dense + "weight", {d, d}, says);
        const Source* head_dense_b = head_bias ? &table.get(names.head_dense + "bias", {d}, says) : nullptr;
        const NormSources head_norm = norm(names.head_norm, norm_bias);
        const Source* out_bias = output_bias ? &table.get(names.output_bias, {vocab}, says) : nullptr;
        const Source* decoder = nullptr;
        if (!c.tie_word_embeddings) {
            if (!table.contains(names.decoder))
                table.fail("config.json says tie_word_embeddings false but there is no '" + names.decoder + "'");
            decoder = &table.get(names.decoder, {vocab, d}, says);
        }
        model->dtype = checkpoint::dtypeName(words.type);

        table.open();
        if (words.type != checkpoint::DType::F32) model->conversion_cache = std::make_shared<model::ConversionCache>();
        const auto& cache = model->conversion_cache;
        // A norm's weight and bias; a norm without a bias (ModernBERT) adds zeros.
        const auto readNorm = [&](const NormSources& s, model::LayerNorm& out) {
            if (!s.weight) return;
            table.vector(*s.weight, out.weight);
            if (s.bias) table.vector(*s.bias, out.bias);
            else out.bias = Eigen::RowVectorXf::Zero(d);
        };
        const auto readBias = [&](const Source* s, Eigen::RowVectorXf& out) {
            if (s) table.vector(*s, out);
        };
        model->wte = table.linear(words, Layout::OutIn, -1, cache);
        if (positions) table.columns(*positions, model->wpe_t);  // (d, positions)
        if (types) {
            Eigen::MatrixXf columns;
            table.columns(*types, columns);  // (d, types)
            model->token_type_embeddings = columns.transpose();
        }
        readNorm(embedding_norm, model->embedding_norm);
        int layer = 0;
        for (const BlockSources& s : blocks) {
            model::Block block;
            model::AttentionWeights& w = block.attention;
            w.heads = w.kv_heads = c.n_head;
            w.d_k = w.d_v = c.headDim();
            if (s.qkv) {
                w.packing = model::QkvPacking::Fused;
                w.W_QKV = table.linear(*s.qkv, Layout::OutIn, layer, cache);
            } else {
                w.W_Q = table.linear(*s.q, Layout::OutIn, layer, cache);
                w.W_K = table.linear(*s.k, Layout::OutIn, layer, cache);
                w.W_V = table.linear(*s.v, Layout::OutIn, layer, cache);
            }
            w.W_O = table.linear(*s.o, Layout::OutIn, layer, cache);
            if (s.qkv_b) {  // the fused bias split as its rows are: [Q | K | V]
                Eigen::RowVectorXf qkv;
                table.vector(*s.qkv_b, qkv);
                w.b_Q = qkv.segment(0, d), w.b_K = qkv.segment(d, d), w.b_V = qkv.segment(2 * d, d);
            }
            readBias(s.q_b, w.b_Q), readBias(s.k_b, w.b_K), readBias(s.v_b, w.b_V), readBias(s.o_b, w.b_O);
            if (!w.b_Q.size() && s.o_b) w.b_Q = w.b_K = w.b_V = Eigen::RowVectorXf::Zero(d);  // all four or none
            if (w.b_Q.size() && !w.b_O.size()) w.b_O = Eigen::RowVectorXf::Zero(d);
            readNorm(s.input_norm, block.ln_1);
            if (modern) {
                readNorm(s.mlp_norm, block.ln_2);
                block.W_gate = table.linear(rowsOf(*s.in, 0, c.n_inner), Layout::OutIn, layer, cache);  // act(input)
                block.W_fc = table.linear(rowsOf(*s.in, c.n_inner, c.n_inner), Layout::OutIn, layer, cache);  // gate
                if (s.in_b) {
                    Eigen::RowVectorXf in_bias;
                    table.vector(*s.in_b, in_bias);
                    block.b_gate = in_bias.head(c.n_inner), block.b_fc = in_bias.tail(c.n_inner);
                }
            } else {
                readNorm(s.attention_norm, block.attention_out_norm);  // after the residual (post_norm)
                readNorm(s.mlp_norm, block.mlp_out_norm);
                block.W_fc = table.linear(*s.in, Layout::OutIn, layer, cache);
                readBias(s.in_b, block.b_fc);
            }
            block.W_proj = table.linear(*s.out, Layout::OutIn, layer, cache);
            readBias(s.out_b, block.b_proj);
            model->blocks.push_back(std::move(block));
            ++layer;
            reporter.step(0.05, 0.9, layer, c.n_layer, "mapping layer " + std::to_string(layer) + " of " + std::to_string(c.n_layer));
        }
        readNorm(final_norm, model->ln_f);
        model->head_transform = table.linear(*head_dense, Layout::OutIn, -1, cache);
        readBias(head_dense_b, model->head_transform_bias);
        readNorm(head_norm, model->head_norm);
        readBias(out_bias, model->output_bias);
        if (decoder) model->lm_head = table.linear(*decoder, Layout::OutIn, -1, cache);
    } catch (const std::bad_alloc&) {
        throw IoError("cannot load '" + weights_path + "': not enough memory for its weights");
    }
    if (modern) {  // one rotation for the global layers, another for the local ones
        model->inverse_frequencies = model::rotaryInverseFrequencies(c);
        model::ModelConfig local = c;
        local.rope_theta = c.local_rope_theta;
        model->local_inverse_frequencies = model::rotaryInverseFrequencies(local);
    }
    reporter.report(0.9, "reading the tokenizer");
    model->tokenizer = loadFolderTokenizer(directory, c.vocab_size);
    reporter.report(1, "ready");
    return model;
}

}  // namespace headscope::io
