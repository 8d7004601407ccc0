#include "TokenAxis.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

namespace headscope::ui {

int setTokenTicks(QCPAxis* axis, const QStringList& labels, const QFont& font, int length_px) {
    const int n = static_cast<int>(labels.size());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QFontMetrics metrics(font);
    // Rotated labels need one line height each; horizontal ones their width.
    const int line = metrics.height() + 2;
    const int step = std::max(1, static_cast<int>(std::ceil(double(n) * line / std::max(1, length_px))));
    for (int i = 0; i < n; i += step) ticker->addTick(i, labels[i]);
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
    axis->setTickLabelFont(font);
    int widest = 0;
    for (const QString& label : labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    // Horizontal when every written label fits its slot, else rotated.
    const double slot = double(length_px) * step / std::max(1, n);
    axis->setTickLabelRotation(widest + 6 <= slot ? 0 : -60);
    return step;
}

QString quoted(const std::string& token, int max_chars) {
    QString t = QString::fromStdString(token);
    if (t.size() > max_chars) t = t.left(max_chars - 1) + QChar(0x2026);
    return QStringLiteral("“%1”").arg(t);
}

}  // namespace headscope::ui
