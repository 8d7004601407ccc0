#include "TokenThinning.h"

#include <QFontMetrics>

namespace headscope::ui {

QStringList thinnedWithPositions(const QStringList& labels, int every, bool numbered) {
    if (every <= 1) return labels;
    QStringList out;
    out.reserve(labels.size());
    for (qsizetype i = 0; i < labels.size(); ++i) {
        if (i % every != 0)
            out << QString();
        else
            out << (numbered ? labels[i] : QString::number(i) + QLatin1Char(':') + labels[i]);
    }
    return out;
}

QStringList elideWords(const QStringList& labels, const QFont& font, int max_px) {
    const QFontMetrics metrics(font);
    QStringList out;
    out.reserve(labels.size());
    for (const QString& label : labels) {
        QString shown = label;
        const qsizetype colon = label.indexOf(QLatin1Char(':'));
        // "12:" then the word, shortened a letter at a time with an ellipsis.
        for (qsizetype keep = label.size() - colon - 2; metrics.horizontalAdvance(shown) > max_px && keep >= 1; --keep)
            shown = label.left(colon + 1 + keep) + QChar(0x2026);
        out << shown;
    }
    return out;
}

QString everyKth(int every, const QString& noun) {
    const int last_two = every % 100, last = every % 10;
    const char* suffix = (last_two >= 11 && last_two <= 13) ? "th"
                         : last == 1                        ? "st"
                         : last == 2                        ? "nd"
                         : last == 3                        ? "rd"
                                                            : "th";
    return QStringLiteral("every %1%2 %3").arg(every).arg(QLatin1String(suffix), noun);
}

}  // namespace headscope::ui
