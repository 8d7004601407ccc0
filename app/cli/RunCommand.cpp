// headscope-cli run: bring your own layer (PyTorch nn.MultiheadAttention weights in a
// .safetensors file) and inputs (.npy); writes what PyTorch returns with
// need_weights=True, average_attn_weights=False: attention.npy (h, n_q, n_kv) and
// output.npy (n_q, d_model). Fully masked rows are zeros here where PyTorch gives NaN.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "Engine.h"
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

}  // namespace

int runRun(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addOptions({
        {"weights", "nn.MultiheadAttention state dict as .safetensors.", "FILE"},
        {"heads", "Number of heads the layer was built with.", "H"},
        {"query", "Queries (n_q, d_model) as .npy.", "X.npy"},
        {"key-value", "Keys and values (n_kv, d_model) as .npy (default: the queries).", "Y.npy"},
        {"mask", "none or causal.", "none|causal"},
        {"prefix", "Prefix of the tensor names, e.g. layers.0.self_attn.", "P"},
        {"out", "Directory for attention.npy and output.npy.", "DIR"},
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
    const double bytes = 4.0 * heads * 2.0 * double(x_q.rows()) * double(x_kv.rows());
    if (bytes > Limits::kMaxBytes) throw UsageError("the attention maps of these inputs would need more than 4 GiB");

    const Results r = forward(options, weights, x_q, x_kv);
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
    std::printf("wrote attention.npy (%d, %ld, %ld) and output.npy (%ld, %d) to %s\n", heads, long(x_q.rows()),
                long(x_kv.rows()), long(x_q.rows()), weights.dModel(), out.c_str());
    return 0;
}

}  // namespace headscope::cli
