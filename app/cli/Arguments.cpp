#include "cli/Arguments.h"

#include <cerrno>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>
#include <limits>

#include "Strings.h"
#include "io/IoError.h"
#include "io/SessionFile.h"

namespace headscope::cli {

namespace {
std::string str(const QString& s) { return s.toStdString(); }

}  // namespace

void addConfigOptions(QCommandLineParser& p) {
    p.addOptions({
        {"d-model", "Model width d_model (1..4096).", "N"},
        {"heads", "Number of query heads h (1..128).", "H"},
        {"d-k", "Query/key size per head (default d_model / h).", "N"},
        {"d-v", "Value size per head (default d_model / h).", "N"},
        {"kv-heads", "Key/value heads, dividing h (grouped-query attention; default h).", "N"},
        {"text", "Input text, split into word and punctuation tokens.", "TEXT"},
        {"seq-len", "Use N seeded random tokens instead of a text.", "N"},
        {"source-text", "Source text for cross-attention (keys and values).", "TEXT"},
        {"mask", "Attention mask: none or causal.", "none|causal"},
        {"pad-keys", "Key positions to mask as padding, e.g. 0,3.", "LIST"},
        {"no-scale", "Do not multiply the logits by 1/sqrt(d_k)."},
        {"temperature", "Softmax temperature T (logits / T; default 1).", "T"},
        {"seed", "Seed for weights and embeddings (default 0).", "S"},
        {"init", "Weight initialiser: xavier (PyTorch's default), normal, or identity (W = I, needs heads x d_k = d_model).", "xavier|normal|identity"},
        {"sigma", "Standard deviation of the normal initialiser (default 0.02).", "SIGMA"},
        {"no-bias", "Layer without bias vectors."},
        {"rank-rtol", "Relative rank tolerance (default: NumPy's sigma_max*max(m,n)*eps).", "RTOL"},
        {"session", "Start from a saved .headscope.json session.", "FILE"},
    });
}

void parseOrThrow(QCommandLineParser& parser, const QStringList& arguments) {
    QStringList argv = arguments;
    argv.prepend("headscope-cli");
    if (!parser.parse(argv)) throw UsageError(str(parser.errorText()));
    if (!parser.positionalArguments().isEmpty())
        throw UsageError("unexpected argument '" + str(parser.positionalArguments().first()) + "'");
}

namespace {
QtMessageHandler qt_default_handler = nullptr;

// The offscreen platform says it cannot resize native windows it does not have: noise.
void quietOffscreenHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtWarningMsg && message.startsWith(QLatin1String("This plugin does not support"))) return;
    if (qt_default_handler) qt_default_handler(type, context, message);
}
}  // namespace

void prepareHeadlessQt() {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!qt_default_handler) qt_default_handler = qInstallMessageHandler(quietOffscreenHandler);
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        const std::string dir = "/tmp/headscope-runtime-" + std::to_string(::getuid());
        if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(dir));
    }
}

int parseInt(const QString& option, const QString& text, int low, int high) {
    bool ok = false;
    const long long v = text.trimmed().toLongLong(&ok);
    if (!ok) throw UsageError("--" + str(option) + " expects a whole number, got '" + str(text) + "'");
    if (v < low || v > high)
        throw UsageError("--" + str(option) + " " + str(text) + " is out of range: choose " + std::to_string(low) +
                         " to " + std::to_string(high));
    return static_cast<int>(v);
}

double parseDouble(const QString& option, const QString& text) {
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok) throw UsageError("--" + str(option) + " expects a number, got '" + str(text) + "'");
    if (!std::isfinite(v)) throw UsageError("--" + str(option) + " expects a finite number, got '" + str(text) + "'");
    return v;
}

std::string requireValue(const QCommandLineParser& parser, const QString& option) {
    if (!parser.isSet(option)) throw UsageError("--" + str(option) + " is required");
    return str(parser.value(option));
}

Config configFromOptions(const QCommandLineParser& p) {
    Config c;
    if (p.isSet("session")) {
        try {
            c = io::loadSession(str(p.value("session")));
        } catch (const io::IoError& e) {
            throw UsageError(e.what());
        }
    }
    if (p.isSet("d-model")) c.d_model = parseInt("d-model", p.value("d-model"), 1, Limits::kMaxDModel);
    if (p.isSet("heads")) c.heads = parseInt("heads", p.value("heads"), 1, Limits::kMaxHeads);
    if (p.isSet("d-k")) c.d_k = parseInt("d-k", p.value("d-k"), 1, Limits::kMaxHeadDim);
    if (p.isSet("d-v")) c.d_v = parseInt("d-v", p.value("d-v"), 1, Limits::kMaxHeadDim);
    if (p.isSet("kv-heads")) c.kv_heads = parseInt("kv-heads", p.value("kv-heads"), 1, Limits::kMaxHeads);
    if (p.isSet("text") && p.isSet("seq-len")) throw UsageError("give either --text or --seq-len, not both");
    if (p.isSet("text")) {
        c.text = str(p.value("text"));
        c.seq_len = 0;
        if (c.text.empty()) throw UsageError("--text is empty: type some words");
    }
    if (p.isSet("seq-len")) {
        c.seq_len = parseInt("seq-len", p.value("seq-len"), 1, Limits::kMaxSeqLen);
        c.text.clear();
    }
    if (p.isSet("source-text")) c.source_text = str(p.value("source-text"));
    if (p.isSet("mask")) {
        const std::optional<MaskKind> mask = maskKindFromString(str(p.value("mask")));
        if (!mask) throw UsageError("--mask must be none or causal, got '" + str(p.value("mask")) + "'");
        c.mask = *mask;
    }
    if (p.isSet("pad-keys")) {
        c.padded_keys.clear();
        for (const QString& k : p.value("pad-keys").split(',', Qt::SkipEmptyParts))
            c.padded_keys.push_back(parseInt("pad-keys", k, 0, Limits::kMaxSeqLen - 1));
    }
    if (p.isSet("no-scale")) c.scale = false;
    if (p.isSet("temperature")) c.temperature = parseDouble("temperature", p.value("temperature"));
    if (p.isSet("seed")) {
        bool ok = false;
        c.seed = p.value("seed").trimmed().toULongLong(&ok);
        if (!ok) throw UsageError("--seed expects a whole number >= 0, got '" + str(p.value("seed")) + "'");
    }
    if (p.isSet("init")) {
        const QString i = p.value("init");
        const std::optional<InitKind> init = initKindFromString(str(i));
        if (!init) throw UsageError("--init must be xavier, normal or identity, got '" + str(i) + "'");
        c.init = *init;
    }
    if (p.isSet("sigma")) c.init_sigma = parseDouble("sigma", p.value("sigma"));
    if (p.isSet("no-bias")) c.bias = false;
    if (p.isSet("rank-rtol")) c.rank_rtol = parseDouble("rank-rtol", p.value("rank-rtol"));
    const auto problems = c.validate();
    if (!problems.empty()) throw UsageError(joinStrings(problems, " "));
    return c;
}

}  // namespace headscope::cli
