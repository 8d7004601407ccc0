// headscope-cli run: bring your own layer (PyTorch nn.MultiheadAttention weights in a
// .safetensors file) and inputs (.npy); writes what PyTorch returns with
// need_weights=True, average_attn_weights=False: attention.npy (h, n_q, n_kv) and
// output.npy (n_q, d_model). Fully masked rows are zeros here where PyTorch gives NaN.
// Beside them the layer's spectra.csv and ranks.csv, and the pictures `export` draws
// (--format, default png; "none" for the arrays alone), tokens named by their positions.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <QApplication>
#include <fstream>

#include "Analysis.h"
#include "Engine.h"
#include "Export.h"
#include "RankTable.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "io/IoError.h"
#include "io/MhaLoader.h"
#include "io/Npy.h"

namespace headscope::cli {

namespace {

// A (n, d) or (1, n, d) float array of d columns, every value finite. (n, d)
Eigen::MatrixXf readInputs(const std::string& path, int d_model, const char* what) {
    io::Tensor t = io::readNpy(path);
    if (t.shape.size() == 3 && t.shape[0] == 1) t.shape.erase(t.shape.begin());
    if (t.shape.size() != 2)
        throw UsageError(std::string(what) + " " + path + " must have shape (n, d_model) or (1, n, d_model), not " +
                         io::shapeToString(t.shape));
    if (t.shape[1] != d_model)
        throw UsageError(std::string(what) + " " + path + " has " + std::to_string(t.shape[1]) +
                         " columns but the weights expect d_model " + std::to_string(d_model));
    if (t.shape[0] < 1 || t.shape[0] > Limits::kMaxSeqLen)
        throw UsageError(std::string(what) + " " + path + " has " + std::to_string(t.shape[0]) +
                         " rows; 1 to " + std::to_string(Limits::kMaxSeqLen) + " tokens are supported");
    for (std::size_t i = 0; i < t.data.size(); ++i)
        if (!std::isfinite(t.data[i]))
            throw UsageError(std::string(what) + " " + path + " contains a non-finite value at row " +
                             std::to_string(i / d_model) + ", column " + std::to_string(i % d_model));
    return io::toMatrix(t);
}

// The layer and its inputs as an Analysis, so spectra, ranks and every view can show them.
Analysis layerAnalysis(const Weights& weights, const std::string& name, const AttentionOptions& options,
                       const Eigen::MatrixXf& x_q, const Eigen::MatrixXf& x_kv, bool cross, Results results) {
    Analysis a;
    Config& c = a.config;
    c.d_model = weights.dModel();
    c.heads = weights.heads;
    c.kv_heads = weights.kv_heads;
    c.d_k = weights.d_k;
    c.d_v = weights.d_v;
    c.bias = weights.hasBias();
    c.text.clear();
    c.seq_len = static_cast<int>(x_q.rows());
    c.mask = options.mask;
    c.padded_keys = options.padded_keys;
    a.model_name = "PyTorch layer " + name;
    a.setWeights(weights);
    for (Eigen::Index i = 0; i < x_q.rows(); ++i) a.input.query.tokens.push_back(std::to_string(i));
    a.input.query.X = x_q;
    a.input.cross = cross;
    if (cross) {
        for (Eigen::Index i = 0; i < x_kv.rows(); ++i) a.input.key_value.tokens.push_back(std::to_string(i));
        a.input.key_value.X = x_kv;
    } else {
        a.input.key_value = a.input.query;
    }
    a.results = std::move(results);
    a.spectra = headSpectra(weights);
    a.logits = logitsSpectra(weights, a.results, options);
    a.cost = computeCost(c, a.nQuery(), a.nKeyValue());
    return a;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw UsageError("cannot write " + path.string());
}

}  // namespace

int runRun(const QStringList& arguments, int argc, char** argv) {
    QCommandLineParser parser;
    parser.addOptions({
        {"weights", "nn.MultiheadAttention state dict as .safetensors.", "FILE"},
        {"heads", "Number of heads the layer was built with.", "H"},
        {"query", "Queries (n_q, d_model) as .npy.", "X.npy"},
        {"key-value", "Keys and values (n_kv, d_model) as .npy (default: the queries).", "Y.npy"},
        {"mask", "none or causal.", "none|causal"},
        {"prefix", "Prefix of the tensor names, e.g. layers.0.self_attn.", "P"},
        {"pad-keys", "Key positions no query may attend to (key_padding_mask), e.g. 0,3.", "LIST"},
        {"format", "Pictures beside the arrays: png, svg, pdf, comma-separated, or none (default png).", "LIST"},
        {"out", "Directory for attention.npy, output.npy, spectra.csv, ranks.csv and the pictures.", "DIR"},
    });
    parseOrThrow(parser, arguments);
    const std::string weights_path = requireValue(parser, "weights");
    const std::string query_path = requireValue(parser, "query");
    const std::string out = requireValue(parser, "out");
    const int heads = parseInt("heads", QString::fromStdString(requireValue(parser, "heads")), 1, Limits::kMaxHeads);
    AttentionOptions options;
    if (parser.isSet("mask")) {
        const std::optional<MaskKind> mask = maskKindFromString(parser.value("mask").toStdString());
        if (!mask) throw UsageError("--mask must be none or causal, got '" + parser.value("mask").toStdString() + "'");
        options.mask = *mask;
    }

    QList<ui::ImageFormat> formats;
    const QString format_list = parser.isSet("format") ? parser.value("format") : QStringLiteral("png");
    if (format_list.trimmed() != QLatin1String("none")) {
        for (const QString& raw : format_list.split(',', Qt::SkipEmptyParts)) {
            const QString name = raw.trimmed().toLower();
            const auto format = ui::imageFormatFromSuffix(name);
            if (!format || name.contains('.')) throw UsageError("unknown picture format '" + raw.toStdString() + "': use png, svg, pdf or none");
            formats.push_back(*format);
        }
    }

    Weights weights;
    Eigen::MatrixXf x_q, x_kv;
    try {
        weights = io::loadMultiheadAttention(weights_path, heads, parser.value("prefix").toStdString());
        x_q = readInputs(query_path, weights.dModel(), "query");
        x_kv = parser.isSet("key-value") ? readInputs(parser.value("key-value").toStdString(), weights.dModel(), "key-value")
                                         : x_q;
    } catch (const io::IoError& e) {
        throw UsageError(e.what());
    }
    if (parser.isSet("pad-keys")) {
        for (const QString& key : parser.value("pad-keys").split(',', Qt::SkipEmptyParts))
            options.padded_keys.push_back(parseInt("pad-keys", key, 0, static_cast<int>(x_kv.rows()) - 1));
    }
    const double bytes = 4.0 * heads * 2.0 * double(x_q.rows()) * double(x_kv.rows());
    if (bytes > Limits::kMaxBytes) throw UsageError("the attention maps of these inputs would need more than 4 GiB");

    Results r = forward(options, weights, x_q, x_kv);
    io::Tensor attention;  // (h, n_q, n_kv)
    attention.shape = {heads, x_q.rows(), x_kv.rows()};
    attention.data.reserve(static_cast<std::size_t>(heads * x_q.rows() * x_kv.rows()));
    for (const HeadResult& head : r.heads)
        for (Eigen::Index q = 0; q < head.weights.rows(); ++q)
            for (Eigen::Index k = 0; k < head.weights.cols(); ++k) attention.data.push_back(head.weights(q, k));
    try {
        std::error_code ec;
        std::filesystem::create_directories(out, ec);
        io::writeNpy((std::filesystem::path(out) / "attention.npy").string(), attention);
        io::writeNpy((std::filesystem::path(out) / "output.npy").string(), r.output);
    } catch (const io::IoError& e) {
        throw UsageError(e.what());
    }
    const Analysis analysis = layerAnalysis(weights, std::filesystem::path(weights_path).filename().string(), options,
                                            x_q, x_kv, parser.isSet("key-value"), std::move(r));
    writeText(std::filesystem::path(out) / "spectra.csv", spectraCsv(analysis));
    writeText(std::filesystem::path(out) / "ranks.csv", rankTableCsv(analysis));
    int pictures = 0;
    if (!formats.isEmpty()) {
        prepareHeadlessQt();
        QApplication app(argc, argv);
        QString error;
        pictures = static_cast<int>(ui::exportImages(analysis, QString::fromStdString(out), formats, &error).size());
        if (!error.isEmpty()) throw UsageError(error.toStdString());
    }
    std::printf("wrote attention.npy (%d, %ld, %ld), output.npy (%ld, %d), spectra.csv, ranks.csv and %d pictures to %s\n",
                heads, long(x_q.rows()), long(x_kv.rows()), long(x_q.rows()), weights.dModel(), pictures, out.c_str());
    return 0;
}

}  // namespace headscope::cli
