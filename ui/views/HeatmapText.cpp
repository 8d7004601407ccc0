// The words of a heatmap: its token labels (drawable in the text font), the name of its values,
// where its weights came from, and a cell's tooltip.
#include "Heatmap.h"

#include <QFontMetrics>
#include <QSet>
#include <QGlyphRun>
#include <QHash>
#include <QTextLayout>
#include <algorithm>

namespace headscope::ui::heatmap {
namespace {

QStringList labels(const std::vector<std::string>& tokens, int max_chars) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(tokens.size()));
    for (const std::string& token : tokens) {
        QString s = drawable(QString::fromStdString(token));
        if (max_chars > 1 && s.size() > max_chars) s = s.left(max_chars - 1) + QChar(0x2026);
        if (s.trimmed().isEmpty()) s = QStringLiteral("␣");
        out.push_back(s);
    }
    return out;
}

QString quoted(const std::vector<std::string>& tokens, int i) {
    if (i < 0 || i >= static_cast<int>(tokens.size())) return QStringLiteral("?");
    return QStringLiteral("'") + QString::fromStdString(tokens[static_cast<std::size_t>(i)]) +
           QStringLiteral("'");
}

QStringList numbered(QStringList labels, bool positions) {
    if (positions)
        for (qsizetype i = 0; i < labels.size(); ++i) labels[i] = QString::number(i) + QLatin1Char(' ') + labels[i];
    return labels;
}

// Whether the text font, or the fallback the font system picks for it, draws code point c.
bool hasGlyph(char32_t c) {
    if (c < 0x80) return true;
    static QHash<char32_t, bool> known;
    const auto found = known.constFind(c);
    if (found != known.constEnd()) return *found;
    QTextLayout layout(QString::fromUcs4(&c, 1), font(10, 1, false));
    layout.beginLayout();
    layout.createLine();
    layout.endLayout();
    bool drawn = true;
    for (const QGlyphRun& run : layout.glyphRuns())
        for (const quint32 glyph : run.glyphIndexes()) drawn = drawn && glyph != 0;  // 0: .notdef, the empty box
    known.insert(c, drawn);
    return drawn;
}
}  // namespace

QString drawable(const QString& text) {
    QString out;
    bool named_last = false;
    for (const char32_t c : text.toUcs4()) {
        if (hasGlyph(c)) {
            out += QString::fromUcs4(&c, 1);
            named_last = false;
            continue;
        }
        if (named_last) out += QLatin1Char(' ');
        out += QStringLiteral("U+") + QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0'));
        named_last = true;
    }
    return out;
}

QStringList queryLabels(const Analysis& analysis, int max_chars, bool positions) {
    return numbered(labels(analysis.input.query.tokens, max_chars), positions);
}

QStringList keyLabels(const Analysis& analysis, int max_chars, bool positions) {
    return numbered(labels(analysis.input.key_value.tokens, max_chars), positions);
}

QString valueName(const Analysis& analysis, bool logits) {
    if (!logits) return QStringLiteral("attention weight (softmax)");
    QString name = QStringLiteral("logit  q·k");
    if (analysis.config.scale) name += QStringLiteral(" / √d_k");
    if (analysis.config.temperature != 1.0)
        name += QStringLiteral(" / T (T = %1)").arg(analysis.config.temperature);
    return name;
}

QString weightsOrigin(const Analysis& a) {
    if (!a.model_name.empty()) return QStringLiteral("trained weights: %1").arg(QString::fromStdString(a.model_name));
    switch (a.config.init) {
        case InitKind::Identity:
            return QStringLiteral("identity weights W = I: no projection, head i reads only its slice of d_model");
        case InitKind::Normal:
            return QStringLiteral("random, untrained weights (normal σ %1, seed %2): no pattern here is learned")
                .arg(a.config.init_sigma).arg(qulonglong(a.config.seed));
        case InitKind::Xavier: break;
    }
    return QStringLiteral("random, untrained weights (Xavier uniform, seed %1): no pattern here is learned")
        .arg(qulonglong(a.config.seed));
}

namespace {
// " · 'é…' is a piece of é (UTF-8 0xC3 0xA9)" for a token whose character's bytes fall into
// several tokens (text::joinSplitCharacters marks the pieces with "…"); "" for any other.
QString splitNote(const std::vector<std::string>& tokens, int i) {
    if (i < 0 || i >= static_cast<int>(tokens.size())) return {};
    const QString token = QString::fromStdString(tokens[std::size_t(i)]);
    const QChar mark(0x2026);
    if (!token.startsWith(mark) && !token.endsWith(mark)) return {};
    QString core = token;
    while (core.startsWith(mark)) core.remove(0, 1);
    while (core.endsWith(mark)) core.chop(1);
    QStringList parts;
    for (const char32_t c : core.toUcs4()) {
        if (c < 0x80) return {};  // a word and an ellipsis, not a piece of a character
        const QByteArray bytes = QString::fromUcs4(&c, 1).toUtf8();
        QStringList hex;
        for (const char b : bytes)
            hex << QStringLiteral("0x") + QString::number(uint(static_cast<unsigned char>(b)), 16).toUpper().rightJustified(2, QLatin1Char('0'));
        parts << QStringLiteral("%1 (UTF-8 %2)").arg(QString::fromUcs4(&c, 1), hex.join(QLatin1Char(' ')));
    }
    if (parts.isEmpty()) return {};
    return QStringLiteral(" · '%1' is a piece of %2, split across tokens").arg(token, parts.join(QStringLiteral(", ")));
}
}  // namespace

QString cellText(const Analysis& analysis, int head, int row, int col) {
    const auto& heads = analysis.results.heads;
    if (head < 0 || head >= static_cast<int>(heads.size())) return {};
    const HeadResult& h = heads[static_cast<std::size_t>(head)];
    if (row < 0 || row >= h.weights.rows() || col < 0 || col >= h.weights.cols()) return {};
    const QString where = QStringLiteral("head %1 · query %2 (row %3) → key %4 (col %5)")
                              .arg(head)
                              .arg(quoted(analysis.input.query.tokens, row))
                              .arg(row)
                              .arg(quoted(analysis.input.key_value.tokens, col))
                              .arg(col);
    const MaskMatrix& allowed = analysis.results.allowed;
    const bool masked = allowed.rows() == h.weights.rows() && allowed.cols() == h.weights.cols() &&
                        !allowed(row, col);
    // The bytes of a character split across tokens (issue 36 item 19), after the numbers.
    const QString pieces = splitNote(analysis.input.query.tokens, row) +
                           (col != row || analysis.input.cross ? splitNote(analysis.input.key_value.tokens, col) : QString());
    if (masked) return where + QStringLiteral(" · masked") + pieces;
    const double logit = analysis.logitAt(head, row, col), weight = h.weights(row, col);
    return where + QStringLiteral(" · logit %1 · weight %2").arg(logit, 0, 'f', 3).arg(weight, 0, 'f', 3) + pieces;
}

int maxLabelWidth(const QStringList& labels, const QFont& font) {
    // Each distinct label shaped once: a long text repeats its words, a thinned axis is mostly blanks.
    const QFontMetrics metrics(font);
    QSet<QString> measured;
    measured.reserve(labels.size());
    int widest = 0;
    for (const QString& label : labels)
        if (!measured.contains(label)) {
            measured.insert(label);
            widest = std::max(widest, metrics.horizontalAdvance(label));
        }
    return widest;
}

}  // namespace headscope::ui::heatmap
