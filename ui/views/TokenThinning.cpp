#include "TokenThinning.h"

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
