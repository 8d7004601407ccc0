// headscope-cli model: a real checkpoint directory or a repo id in the Hugging Face cache (--revision R; io/HubCache.h),
// of any family io/Checkpoint.h opens, on an input. Prints the tokens and
// ids, every head's W_QK and W_OV rank per layer and the top-10 next tokens; --json prints
// one JSON object instead (with the weights' dtype as loaded and the process's peak memory); --out DIR writes, in layer order,
//   attention_layer_<L>.npy     (heads, n, n) attention weights of layer L
//   layer_<L>/...               what `export` writes for that layer, in the --format list
//                               (images: attention_weights.png, spectrum_qk.png, ...;
//                               csv/npy: the layer's matrices, as exportMatrices names them)
// --attention-only (with --out) writes the attention arrays alone, for a model of any size.
// --layer L restricts the ranks, the JSON attention and the files to layer L. --delta N (rotary
// models, with --out): the W_QK pictures at W_QK,i(Delta) and head_<i>_W_QK_delta_<N> beside W_QK (DeltaOption.h).
// Every report carries the log-probability of each actual next token and the loss; --ablate
// L.H,... [--ablate-mode zero|mean] knocks heads out and reports before and after (ModelAblation.h).
#include <QApplication>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "model/HeadPatterns.h"
#include "model/WeightSpectra.h"

#include "Export.h"
#include "Spectrum.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "cli/DeltaOption.h"
#include "cli/ModelCacheOption.h"
#include "cli/ModelAblation.h"
#include "cli/ModelBench.h"
#include "cli/ModelOutputBytes.h"
#include "io/Checkpoint.h"
#include "io/HubCache.h"
#include "io/IoError.h"
#include "io/MatrixExport.h"
#include "io/Npy.h"
#include "model/Forward.h"

namespace headscope::cli {

namespace {

constexpr double kMaxJsonAttentionValues = 250'000;  // above this, --json leaves the maps to --out
// Every layer's maps are kept while they take at most this; past it, one layer's at a time.
constexpr double kMaxKeptMapsBytes = 1024.0 * 1024 * 1024;

std::vector<int> parseIds(const QString& text) {
    std::vector<int> ids;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts))
        ids.push_back(parseInt("ids", part, 0, 10'000'000 - 1));
    if (ids.empty()) throw UsageError("--ids lists no token id: give e.g. --ids 2,0,1");
    return ids;
}

struct LayerReport {
    int layer;
    std::vector<HeadSpectra> spectra;
};

// The architecture as config.json and the weights give it.
nlohmann::json architectureJson(const model::Model& m) {
    const model::ModelConfig& c = m.config;
    const bool gated = c.mlp == model::MlpKind::Gated;
    nlohmann::json rotary = nullptr;
    if (c.rotary_dims > 0) {
        rotary = {{"theta", c.rope_theta}, {"dims", c.rotary_dims}, {"share", c.rotaryShare()},
                  {"scaling", c.rope_scaling.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.rope_scaling)}};
    }
    return {{"family", c.familyName()},
            {"model_type", c.family},
            {"norm", c.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm"},
            {"norm_epsilon", c.layer_norm_epsilon},
            {"activation", c.activation_name},
            {"mlp", gated ? "gated (SwiGLU: down(act(gate x) * up x))" : "plain (act(x W_in) W_out)"},
            {"position", c.rotary_dims > 0 ? "rotary" : c.position_embedding ? "learned" : "none"},
            {"rope", rotary},
            {"parallel_residual", c.parallel_residual},
            {"heads", c.n_head},
            {"kv_heads", c.kvHeads()},
            {"head_dim", c.headDim()},
            {"attention_bias", !m.blocks.empty() && m.blocks[0].attention.hasBias()},
            {"tied_output", m.tiedOutput()},
            {"dtype", m.dtype},
            {"parameters", m.parameterCount()}};
}

nlohmann::json reportJson(const model::Model& m, const model::Trace& trace, const std::vector<LayerReport>& layers,
                          const std::vector<model::NextToken>& next) {
    const model::ModelConfig& c = m.config;
    nlohmann::json j;
    j["checkpoint"] = m.directory;
    j["model"] = {{"n_layer", c.n_layer},         {"n_head", c.n_head},         {"n_embd", c.n_embd},
                  {"d_k", c.headDim()},           {"n_positions", c.n_positions}, {"vocab_size", c.vocab_size},
                  {"dtype", m.dtype},             {"parameters", m.parameterCount()},
                  {"tied_output", m.tiedOutput()}, {"activation", c.activation_name}};
    j["architecture"] = architectureJson(m);
    j["ids"] = trace.ids;
    j["tokens"] = nlohmann::json::array();
    for (int id : trace.ids) j["tokens"].push_back(m.tokenizer->hasId(id) ? m.tokenizer->decode({id}) : "");
    j["token_labels"] = trace.tokens;
    j["mask"] = toString(trace.options.attention.mask);
    j["token_types"] = trace.options.token_types;
    j["second_sentence"] = trace.options.second_sentence;
    j["temperature"] = trace.options.attention.temperature;
    const double values = double(layers.size()) * c.n_head * double(trace.n()) * trace.n();
    const bool with_attention = values <= kMaxJsonAttentionValues;
    j["attention_included"] = with_attention;
    j["layers"] = nlohmann::json::array();
    for (const LayerReport& report : layers) {
        nlohmann::json heads = nlohmann::json::array();
        const Results maps = with_attention ? model::layerAttention(m, trace, report.layer) : Results();
        for (int i = 0; i < c.n_head; ++i) {
            nlohmann::json head = {{"head", i},
                                   {"qk_rank", report.spectra[i].qk.rank},
                                   {"ov_rank", report.spectra[i].ov.rank}};
            if (with_attention) {
                const Eigen::MatrixXf& w = maps.heads[std::size_t(i)].weights;  // (n, n)
                nlohmann::json rows = nlohmann::json::array();
                for (Eigen::Index q = 0; q < w.rows(); ++q) {
                    std::vector<float> row(w.cols());
                    for (Eigen::Index k = 0; k < w.cols(); ++k) row[k] = w(q, k);
                    rows.push_back(row);
                }
                head["attention"] = std::move(rows);
            }
            heads.push_back(std::move(head));
        }
        j["layers"].push_back({{"layer", report.layer}, {"heads", std::move(heads)}});
    }
    // What each head looks at (issue 34): per pattern, each reported layer's shares (null: no such key); a long
    // input's taken by the forward from each map before it was dropped.
    nlohmann::json patterns = nlohmann::json::object();
    for (model::HeadPattern p : model::allHeadPatterns()) {
        const Eigen::MatrixXf shares = model::headPatternShares(trace, p);  // (layers, heads)
        nlohmann::json rows = nlohmann::json::array();
        for (const LayerReport& report : layers) {
            nlohmann::json row = nlohmann::json::array();
            for (int h = 0; h < c.n_head; ++h)
                row.push_back(std::isnan(shares(report.layer, h)) ? nlohmann::json(nullptr) : nlohmann::json(shares(report.layer, h)));
            rows.push_back(std::move(row));
        }
        patterns[model::headPatternName(p)] = std::move(rows);
    }
    j["head_patterns"] = std::move(patterns);
    // An encoder's guesses at each [MASK] / <mask> (fill-mask); a decoder's next token below.
    j["masked"] = nlohmann::json::array();
    for (int position : model::maskedPositions(m, trace)) {
        nlohmann::json guesses = nlohmann::json::array();
        for (const model::NextToken& t : model::topTokensAt(m, trace, position, kTopTokens))
            guesses.push_back({{"id", t.id}, {"label", t.token}, {"probability", t.probability}});
        j["masked"].push_back({{"position", position}, {"top", std::move(guesses)}});
    }
    j["next_tokens"] = nlohmann::json::array();
    for (const model::NextToken& t : next)
        j["next_tokens"].push_back({{"id", t.id},
                                    {"token", m.tokenizer->hasId(t.id) ? m.tokenizer->decode({t.id}) : ""},
                                    {"label", t.token},
                                    {"probability", t.probability}});
    return j;
}

void printReport(const model::Model& m, const model::Trace& trace, const std::vector<LayerReport>& layers,
                 const std::vector<model::NextToken>& next) {
    const model::ModelConfig& c = m.config;
    std::printf("%s checkpoint %s: %d layers x %d heads, d_model %d (d_k %d), vocabulary %d, longest input %d tokens, %s, %lld parameters\n",
                c.familyName().c_str(), m.directory.c_str(), c.n_layer, c.n_head, c.n_embd, c.headDim(), c.vocab_size,
                c.n_positions, m.dtype.c_str(), m.parameterCount());
    std::printf("architecture: %s\n", model::describeArchitecture(m).c_str());
    std::printf("\n%d tokens (a space shows as \u2423):\n%9s %8s  %s\n", trace.n(), "position", "id", "token");
    for (int i = 0; i < trace.n(); ++i) std::printf("%9d %8d  %s\n", i, trace.ids[i], trace.tokens[i].c_str());
    std::string ids;
    for (int id : trace.ids) {
        if (!ids.empty()) ids += ',';
        ids += std::to_string(id);
    }
    std::printf("ids: %s\n", ids.c_str());
    std::printf("\nranks of W_QK,i = W_i^Q W_i^K^T and W_OV,i = W_i^V W_i^O (at most d_k = %d):\n%6s %5s %8s %8s\n",
                c.headDim(), "layer", "head", "rank QK", "rank OV");
    if (c.rotary_dims > 0)
        std::printf("(rotary model: W_QK,i here is the product at distance 0; the rotation between W_Q and W_K^T keeps the rank <= d_k)\n");
    for (const LayerReport& report : layers)
        for (int i = 0; i < c.n_head; ++i)
            std::printf("%6d %5d %8d %8d\n", report.layer, i, report.spectra[i].qk.rank, report.spectra[i].ov.rank);
    if (c.encoder) {  // fill-mask instead of a next token
        const std::vector<int> masked = model::maskedPositions(m, trace);
        if (masked.empty()) std::printf("\nan encoder: no [MASK] in the input, so no guesses (--json lists each head's patterns)\n");
        for (int position : masked) {
            std::printf("\nguesses at position %d ([MASK]):\n", position);
            const std::vector<model::NextToken> top = model::topTokensAt(m, trace, position, kTopTokens);
            for (std::size_t r = 0; r < top.size(); ++r)
                std::printf("%4zu. %8d  %-10.4g  %s\n", r + 1, top[r].id, top[r].probability, top[r].token.c_str());
        }
        return;
    }
    std::printf("\ntop %d next tokens:\n%5s %8s  %-10s  %s\n", static_cast<int>(next.size()), "rank", "id", "p", "token");
    for (std::size_t r = 0; r < next.size(); ++r)
        std::printf("%4zu. %8d  %-10.4g  %s\n", r + 1, next[r].id, next[r].probability, next[r].token.c_str());
}

}  // namespace

int runModel(const QStringList& arguments, int argc, char** argv) {
    QCommandLineParser parser;
    parser.addOptions({
        {"checkpoint", "Hugging Face model directory (config.json, model.safetensors or its shards, tokenizer.json or "
                       "vocab.json + merges.txt, or no tokenizer: give --ids) or a repo id in the Hugging Face cache "
                       "(e.g. Qwen/Qwen3-0.6B): gpt2, llama, mistral, qwen2, qwen3, smollm3, olmo2, gemma2, "
                       "gemma3_text, gemma3, phi3, gpt_neox, or an encoder: bert, roberta, distilbert, modernbert.", "DIR|REPO"},
        {"revision", "With a repo id: the branch, tag or commit of the cache to open (default main).", "R"},
        {"text", "Input text, tokenised with the checkpoint's tokenizer.", "TEXT"},
        {"ids", "Input token ids instead of a text, e.g. 2,0,1.", "LIST"},
        {"pair", "An encoder: a second sentence, joined to --text by the tokenizer's pair template ([CLS] A [SEP] B [SEP]).", "TEXT"},
        {"layer", "Report and write only layer L (default: every layer).", "L"},
        {"mask", "Attention mask: causal (the models', the default) or none.", "causal|none"},
        {"temperature", "Softmax temperature T of every head (logits / T; default 1).", "T"},
        {"ablate", "Knock out these heads (LAYER.HEAD, comma-separated, e.g. 1.0,1.1) and show what changes.", "LIST"},
        {"ablate-mode", "With --ablate: zero (the head writes nothing, the default) or mean (its mean output over the input's positions).", "zero|mean"},
        {"json", "Print one JSON object instead of text."},
        {"out", "Directory for attention_layer_<L>.npy and layer_<L>/ exports (created if missing).", "DIR"},
        {"attention-only", "With --out: write every layer's attention_layer_<L>.npy and nothing else (no layer_<L>/ "
                           "exports, no rank table), for a model of any size."},
        {"format", "With --out: comma-separated png, svg, pdf, csv, npy for layer_<L>/ (default png).", "LIST"},
        {"scale", "Pixel scale of PNG images (default 2).", "S"},
    });
    parser.addOption(deltaOption());
    parser.addOption(cacheLayersOption());
    parseOrThrow(parser, arguments);
    const std::string checkpoint = requireValue(parser, "checkpoint");
    if (parser.isSet("text") == parser.isSet("ids")) throw UsageError("give either --text or --ids (one of them)");
    if (!parser.isSet("out") && (parser.isSet("format") || parser.isSet("scale") || parser.isSet("delta") ||
                                 parser.isSet("attention-only")))
        throw UsageError("--format, --scale, --delta and --attention-only need --out DIR");
    const bool attention_only = parser.isSet("attention-only");
    if (attention_only && (parser.isSet("format") || parser.isSet("scale") || parser.isSet("delta")))
        throw UsageError("--attention-only writes the attention arrays alone: leave out --format, --scale and --delta");

    model::ForwardOptions options;
    if (parser.isSet("mask")) {
        const QString mask = parser.value("mask");
        if (mask != "none" && mask != "causal") throw UsageError("--mask must be causal or none, got '" + mask.toStdString() + "'");
        options.attention.mask = mask == "none" ? MaskKind::None : MaskKind::Causal;
    }
    if (parser.isSet("temperature")) {
        options.attention.temperature = parseDouble("temperature", parser.value("temperature"));
        if (!(options.attention.temperature >= 0.01 && options.attention.temperature <= 100))
            throw UsageError("--temperature " + parser.value("temperature").toStdString() + " is out of range: choose 0.01 to 100");
    }
    std::vector<io::MatrixFormat> matrix_formats;
    QList<ui::ImageFormat> image_formats;
    for (const QString& raw : (parser.isSet("format") ? parser.value("format") : QStringLiteral("png")).split(',', Qt::SkipEmptyParts)) {
        const QString name = raw.trimmed().toLower();
        if (name == "csv") matrix_formats.push_back(io::MatrixFormat::Csv);
        else if (name == "npy") matrix_formats.push_back(io::MatrixFormat::Npy);
        else if (name == "png" || name == "svg" || name == "pdf") image_formats.push_back(*ui::imageFormatFromSuffix(name));
        else throw UsageError("unknown export format '" + raw.toStdString() + "': use png, svg, pdf, csv or npy");
    }
    const double scale = parser.isSet("scale") ? parseDouble("scale", parser.value("scale")) : 2.0;
    if (!(scale >= 0.25 && scale <= 8)) throw UsageError("--scale is out of range: choose 0.25 to 8");
    const std::vector<int> given_ids = parser.isSet("ids") ? parseIds(parser.value("ids")) : std::vector<int>{};
    const int cache_layers = parseCacheLayers(parser);

    model::ModelPtr m;
    try {
        m = io::loadCheckpoint(io::resolveModelPath(checkpoint, parser.value("revision").toStdString()), {}, cache_layers);
    } catch (const io::IoError& e) {
        throw UsageError(e.what());
    }
    const model::ModelConfig& c = m->config;
    std::vector<int> ids = given_ids;
    if (parser.isSet("pair") && (!parser.isSet("text") || !c.encoder))
        throw UsageError("--pair needs --text and an encoder (bert, roberta, distilbert, modernbert)");
    if (parser.isSet("text")) {
        const std::string text = parser.value("text").toStdString();
        if (text.empty()) throw UsageError("--text is empty: type some words");
        try {
            if (parser.isSet("pair")) {  // [CLS] A [SEP] B [SEP]: BERT's token types, and where B starts
                const text::PairEncoding joined = m->tokenizer->encodePair(text, parser.value("pair").toStdString());
                ids = joined.ids;
                options.second_sentence = joined.second;
                if (c.type_vocab_size > 0) options.token_types = joined.types;
            } else {
                ids = m->tokenizer->encode(text);
            }
        } catch (const text::TokenizerError& e) {
            throw UsageError(std::string("--text cannot be tokenised: ") + e.what());
        }
    }
    if (static_cast<int>(ids.size()) > c.n_positions)
        throw UsageError("the input is " + std::to_string(ids.size()) + " tokens long but this model reads at most " +
                         std::to_string(c.n_positions) + " (n_positions)");
    // Every head's attention, and every position's logits (for the log-probabilities). A long input
    // keeps one layer's maps at a time (each printed layer's recomputed from the trace when needed).
    const int n = static_cast<int>(ids.size());
    const double logits_bytes = 4.0 * double(n) * c.vocab_size;
    options.keep_maps = model::traceBytes(c, n) <= kMaxKeptMapsBytes;
    if (model::traceBytes(c, n, options.keep_maps) + logits_bytes > Limits::kMaxBytes)
        throw UsageError("the attention and logits of " + std::to_string(n) + " tokens would need more than 4 GiB: use a shorter input");
    std::vector<int> layer_indices;
    if (parser.isSet("layer")) {
        layer_indices.push_back(parseInt("layer", parser.value("layer"), 0, c.n_layer - 1));
    } else {
        for (int l = 0; l < c.n_layer; ++l) layer_indices.push_back(l);
    }

    options.all_logits = true;  // the log-probability of every actual next token
    options.ablation = ablationFromOptions(parser, c);
    model::Trace trace;
    std::optional<model::Trace> before;
    try {
        trace = model::runModel(*m, ids, options);
        if (!options.ablation.empty()) {
            model::ForwardOptions intact = options;
            intact.ablation = {};
            before = model::runModel(*m, ids, intact);
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // Each printed layer's weight spectra computed once, for the rank table and the files of --out.
    const model::WeightSpectraCache weight_spectra(m);
    // Every layer of a model has the same positions: the first one answers for --delta.
    const std::optional<int> delta =
        parser.isSet("delta") ? parseDelta(parser, model::layerAnalysis(trace, layer_indices.front(), weight_spectra))
                              : std::nullopt;
    // Every file --out will write, counted before any is written: W_QK, W_OV (and W_QK(Delta)) are
    // d_model x d_model per head; refuse to fill a disk by surprise (as export does).
    if (parser.isSet("out")) {
        const bool bias = m->blocks.front().attention.hasBias();
        double bytes = 0;
        for (std::size_t k = 0; k < layer_indices.size(); ++k)
            bytes += attention_only ? 4.0 * c.n_head * double(trace.n()) * trace.n()  // attention_layer_<L>.npy
                                    : modelOutputLayerBytes(c, trace.n(), bias, matrix_formats, delta.has_value());
        if (bytes > kMaxModelOutputBytes)
            throw UsageError("the files of --out would take " + std::to_string(static_cast<long long>(bytes / (1024 * 1024))) +
                             " MiB, more than 2 GiB (csv/npy hold d_model x d_model matrices per head" +
                             (delta ? std::string(", twice with --delta") : std::string()) +
                             "); choose one --layer or leave csv/npy out of --format");
    }
    std::vector<LayerReport> layers;
    if (!attention_only)
        for (int l : layer_indices) layers.push_back({l, *weight_spectra.get(l, 0)});
    // An encoder predicts masked tokens (j["masked"]), not the next one.
    const auto next = c.encoder ? std::vector<model::NextToken>{} : model::topNextTokens(*m, trace, kTopTokens);

    if (parser.isSet("json")) {
        nlohmann::json j = reportJson(*m, trace, layers, next);
        addAblationJson(j, *m, trace, before);
        j["peak_memory_mib"] = peakMemoryMiB();  // this process's peak resident memory so far (VmHWM)
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        printReport(*m, trace, layers, next);
        printAblation(*m, trace, before);
    }

    if (!parser.isSet("out")) return 0;
    const std::filesystem::path out = parser.value("out").toStdString();
    int files = 0;
    try {
        std::error_code ec;
        std::filesystem::create_directories(out, ec);
        for (int l : layer_indices) {
            io::Tensor attention;  // (heads, n, n)
            attention.shape = {c.n_head, trace.n(), trace.n()};
            attention.data.reserve(static_cast<std::size_t>(c.n_head) * trace.n() * trace.n());
            const Results maps = model::layerAttention(*m, trace, l);  // recomputed where a long input dropped them
            for (const HeadResult& head : maps.heads)
                for (Eigen::Index q = 0; q < head.weights.rows(); ++q)
                    for (Eigen::Index k = 0; k < head.weights.cols(); ++k) attention.data.push_back(head.weights(q, k));
            io::writeNpy((out / ("attention_layer_" + std::to_string(l) + ".npy")).string(), attention);
            ++files;
        }
    } catch (const io::IoError& e) {
        throw UsageError(e.what());
    }
    if (attention_only) {
        if (!parser.isSet("json")) std::printf("\nwrote %d files to %s\n", files, out.string().c_str());
        return 0;
    }
    std::unique_ptr<QApplication> app;
    if (!image_formats.isEmpty()) {
        prepareHeadlessQt();  // headless by design: never needs a display
        app = std::make_unique<QApplication>(argc, argv);
    }
    for (int l : layer_indices) {
        const Analysis analysis = model::layerAnalysis(trace, l, weight_spectra);
        const std::filesystem::path dir = out / ("layer_" + std::to_string(l));
        try {
            if (!matrix_formats.empty()) files += static_cast<int>(io::exportMatrices(analysis, dir.string(), matrix_formats).size());
            if (delta) files += static_cast<int>(writeRotatedQK(analysis, *delta, dir.string(), matrix_formats).size());
        } catch (const io::IoError& e) {
            throw UsageError(e.what());
        }
        if (!image_formats.isEmpty()) {
            QString error;
            const QStringList images = ui::exportImages(analysis, QString::fromStdString(dir.string()), image_formats,
                                                        &error, ui::ViewOptions{}, scale, 0, delta);
            if (!error.isEmpty()) throw UsageError(error.toStdString());
            files += static_cast<int>(images.size());
        }
    }
    if (!parser.isSet("json")) std::printf("\nwrote %d files to %s\n", files, out.string().c_str());
    return 0;
}

}  // namespace headscope::cli
