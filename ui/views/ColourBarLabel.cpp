#include "ColourBarLabel.h"

namespace headscope::ui {

void ColourBarLabel::install(QCPColorScale* scale) {
    new ColourBarLabel(scale);  // owned by the scale
}

ColourBarLabel::ColourBarLabel(QCPColorScale* scale) : QObject(scale), scale_(scale) {
    connect(scale->parentPlot(), &QCustomPlot::afterLayout, this, &ColourBarLabel::fit);
}

QString ColourBarLabel::fitted(const QString& label, const QFontMetricsF& metrics, double length) {
    // Half a pixel spare: QCustomPlot draws the turned text centred on the bar, rounded.
    const auto fits = [&](const QString& line) { return metrics.horizontalAdvance(line) <= length - 0.5; };
    QStringList shown;
    for (QString line : label.split(QLatin1Char('\n'))) {
        while (!line.isEmpty() && !fits(line)) {
            if (line.startsWith(QLatin1Char('(')))
                line.clear();  // "(grey = masked)": whole or not at all
            else if (line.contains(QStringLiteral(" (")))
                line.truncate(line.indexOf(QStringLiteral(" (")));
            else if (line.contains(QStringLiteral(" · ")))
                line.truncate(line.lastIndexOf(QStringLiteral(" · ")));
            else if (line.contains(QLatin1Char(' ')))
                line.truncate(line.lastIndexOf(QLatin1Char(' ')));
            else
                line.clear();
        }
        if (!line.isEmpty()) shown << line;
    }
    return shown.join(QLatin1Char('\n'));
}

void ColourBarLabel::fit() {
    QCPAxis* axis = scale_->axis();
    if (!scale_->visible() || !scale_->layout()) return;
    if (axis->label() != shown_) whole_ = axis->label();
    const QRect bar = axis->axisRect()->rect();
    const bool vertical = axis->orientation() == Qt::Vertical;
    const double length = vertical ? bar.height() : bar.width();
    if (length <= 0) return;
    const QString label = fitted(whole_, QFontMetricsF(axis->labelFont()), length);
    shown_ = label;
    if (label == axis->label()) return;
    const bool lines_changed = label.count(QLatin1Char('\n')) != axis->label().count(QLatin1Char('\n')) ||
                               label.isEmpty() != axis->label().isEmpty();
    axis->setLabel(label);
    // A line more or less changes the bar's margin, laid out already for this frame: once more.
    if (lines_changed) scale_->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace headscope::ui
