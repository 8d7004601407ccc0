#include "TypesetText.h"

#include <QAbstractTextDocumentLayout>
#include <QCache>
#include <QColor>
#include <QCoreApplication>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QStringList>
#include <QTextDocument>

namespace headscope::ui::typeset {
namespace {

enum class Kind { Plain, Sub, Sup };

// Letters and decimal digits; not "²" or "ᵀ", which are already raised ("d_model²", "W_i^Kᵀ").
bool runChar(QChar c) { return (c.isLetter() && c.category() != QChar::Letter_Modifier) || c.isDigit(); }
bool isMark(QChar c) { return c == QLatin1Char('_') || c == QLatin1Char('^'); }

// May a script start at text[i]? After a one-letter name, a closing bracket or bar, a
// superscript digit ("‖W‖²_F"), or right after another script.
bool scriptMayFollow(const QString& text, qsizetype i, bool after_script) {
    if (after_script) return true;
    if (i == 0) return false;
    const QChar before = text[i - 1];
    if (before == QLatin1Char(')') || before == QLatin1Char(']') || before == QChar(0x2016) || before == QChar(0x00B2))
        return true;
    if (!before.isLetter()) return false;
    return i < 2 || !runChar(text[i - 2]);  // "W_", "(d_", not "tiny_"
}

// The script after the mark at text[i]: its text and where it ends, or false.
bool script(const QString& text, qsizetype i, bool super, QString* run, qsizetype* end) {
    qsizetype j = i + 1;
    if (j < text.size() && text[j] == QLatin1Char('{')) {
        const qsizetype close = text.indexOf(QLatin1Char('}'), j);
        if (close < 0 || close == j + 1) return false;
        *run = text.mid(j + 1, close - j - 1);
        *end = close + 1;
        return true;
    }
    const qsizetype start = j;
    if (super && j < text.size() && (text[j] == QLatin1Char('-') || text[j] == QChar(0x2212))) ++j;
    const qsizetype first = j;
    while (j < text.size()) {
        if (runChar(text[j])) {
            ++j;
        } else if (!super && text[j] == QLatin1Char(',') && j > first && j + 1 < text.size() && runChar(text[j + 1])) {
            ++j;  // "W_QK,i": the head index belongs to the subscript
        } else {
            break;
        }
    }
    if (j == first) return false;
    *run = text.mid(start, j - start);
    *end = j;
    return true;
}

// Calls out(kind, piece, at) for each plain run and each script of one line, in order; each
// piece is text.mid(at, piece.size()) (an escaped character is a piece of its own).
template <typename Emit>
void walk(const QString& text, Emit out) {
    qsizetype plain_start = 0;
    const auto flush = [&](qsizetype i) {
        if (i > plain_start) out(Kind::Plain, text.mid(plain_start, i - plain_start), plain_start);
    };
    bool after_script = false;
    for (qsizetype i = 0; i < text.size();) {
        const QChar c = text[i];
        if (c == QLatin1Char('\\') && i + 1 < text.size() && (isMark(text[i + 1]) || text[i + 1] == QLatin1Char('\\'))) {
            flush(i);
            out(Kind::Plain, QString(text[i + 1]), i + 1);  // an escaped mark or backslash: the character itself
            i += 2;
            plain_start = i;
            after_script = false;
            continue;
        }
        QString run;
        qsizetype end = 0;
        if (isMark(c) && scriptMayFollow(text, i, after_script) && script(text, i, c == QLatin1Char('^'), &run, &end)) {
            flush(i);
            out(c == QLatin1Char('_') ? Kind::Sub : Kind::Sup, run, text[i + 1] == QLatin1Char('{') ? i + 2 : i + 1);
            i = end;
            plain_start = i;
            after_script = true;
            continue;
        }
        ++i;
        after_script = false;
    }
    flush(text.size());
}

// A mnemonic's "&" dropped ("&&" is one "&"): the text, and where the marked character is (-1: none).
QString withoutMnemonic(const QString& text, qsizetype* marked) {
    QString out;
    *marked = -1;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] == QLatin1Char('&') && i + 1 < text.size()) {
            if (text[i + 1] != QLatin1Char('&') && *marked < 0) *marked = out.size();
            ++i;
        }
        out += text[i];
    }
    return out;
}

// lineHtml with the character at `marked` underlined (a mnemonic, as Qt draws it).
QString lineHtmlMarked(const QString& line, qsizetype marked) {
    QString body;
    walk(line, [&](Kind kind, const QString& piece, qsizetype at) {
        QString escaped;
        for (qsizetype k = 0; k < piece.size(); ++k) {
            const QString one = QString(piece[k]).toHtmlEscaped();
            escaped += at + k == marked ? QStringLiteral("<u>%1</u>").arg(one) : one;
        }
        body += kind == Kind::Plain ? escaped
                : kind == Kind::Sub ? QStringLiteral("<sub>%1</sub>").arg(escaped)
                                    : QStringLiteral("<sup>%1</sup>").arg(escaped);
    });
    return body;
}

QString alignName(Qt::Alignment align) {
    if (align & Qt::AlignLeft) return QStringLiteral("left");
    if (align & Qt::AlignRight) return QStringLiteral("right");
    return QStringLiteral("center");
}

void prepare(QTextDocument* doc, const QString& text, const QFont& font, const QColor& color, Qt::Alignment align) {
    doc->setDocumentMargin(0);
    doc->setDefaultFont(font);
    doc->setDefaultStyleSheet(QStringLiteral("p { color: %1; }").arg(color.name()));
    doc->setHtml(toHtml(text, align));
    doc->setTextWidth(-1);
    doc->setTextWidth(doc->idealWidth());  // lines aligned within the widest
}

// Documents laid out by prepare(), by what they show: a window paints the same labels again and
// again (the status line's facts, titles, axis labels), and each layout through QTextDocument took
// 0.1-0.5 ms. Owned by the application, so they go before the fonts they hold.
class LaidOutDocuments : public QObject {
public:
    using QObject::QObject;
    // The document for these arguments, laid out once; valid until the next call.
    const QTextDocument& get(const QString& text, const QFont& font, const QColor& color, Qt::Alignment align) {
        const QString key = font.key() + QChar(0x1F) + color.name(QColor::HexArgb) + QChar(0x1F) +
                            QString::number(int(align & Qt::AlignHorizontal_Mask)) + QChar(0x1F) + text;
        if (const QTextDocument* doc = documents_.object(key)) return *doc;
        auto* doc = new QTextDocument;
        prepare(doc, text, font, color, align);
        documents_.insert(key, doc);
        return *doc;
    }

private:
    QCache<QString, QTextDocument> documents_{512};
};

const QTextDocument& laidOut(const QString& text, const QFont& font, const QColor& color, Qt::Alignment align) {
    static QPointer<LaidOutDocuments> cache;
    if (!cache) cache = new LaidOutDocuments(QCoreApplication::instance());
    return cache->get(text, font, color, align);
}

}  // namespace

bool hasNotation(const QString& text) {
    bool found = false;
    walk(text, [&](Kind kind, const QString&, qsizetype) { found = found || kind != Kind::Plain; });
    return found;
}

QString lineHtml(const QString& line) { return lineHtmlMarked(line, -1); }

QString mnemonicRichText(const QString& text) {
    qsizetype marked = -1;
    const QString shown = withoutMnemonic(text, &marked);
    return lineHtmlMarked(shown, marked);
}

QString toHtml(const QString& text, Qt::Alignment align) {
    QString html;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString body = lineHtml(line);
        html += QStringLiteral("<p align=\"%1\" style=\"margin:0; white-space:pre\">%2</p>")
                    .arg(alignName(align), body.isEmpty() ? QStringLiteral("&nbsp;") : body);
    }
    return html;
}

QString richText(const QString& text) {
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n'))) lines << lineHtml(line);
    return lines.join(QStringLiteral("<br>"));
}

QString richTextIfNotation(const QString& text) { return hasNotation(text) ? richText(text) : text; }

void setLabelText(QLabel* label, const QString& text) {
    const bool notation = hasNotation(text);
    label->setTextFormat(notation ? Qt::RichText : Qt::AutoText);
    label->setText(notation ? richText(text) : text);
    label->setAccessibleName(notation ? text : QString());
}

QString plain(const QString& text) {
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString out;
        walk(line, [&](Kind, const QString& piece, qsizetype) { out += piece; });
        lines << out;
    }
    return lines.join(QLatin1Char('\n'));
}

QSizeF size(const QString& text, const QFont& font) { return laidOut(text, font, Qt::black, Qt::AlignHCenter).size(); }

void draw(QPainter* painter, const QString& text, const QFont& font, const QColor& color, Qt::Alignment align) {
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette.setColor(QPalette::Text, color);
    laidOut(text, font, color, align).documentLayout()->draw(painter, context);
}

}  // namespace headscope::ui::typeset
