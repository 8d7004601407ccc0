#include "TextFit.h"

#include <QFontMetrics>
#include <QFontMetricsF>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace headscope::ui::fit {

QString longestThatFits(const QStringList& variants, const QFont& font, double room) {
    const QFontMetricsF metrics(font);
    for (const QString& v : variants)
        if (metrics.horizontalAdvance(v) <= room) return v;
    return {};
}

double tickStep(double extent, double pixels_per_unit, double room, bool two_ticks) {
    const double wanted = std::max(1.0, room / std::max(pixels_per_unit, 1e-9));
    const double half = std::max(1.0, std::floor(extent / 2.0));
    double best = 1;
    for (double power = 1;; power *= 10)
        for (double mantissa : {1.0, 2.0, 5.0}) {
            const double step = mantissa * power;
            if (two_ticks && step > half) return best;
            if (step >= wanted || step > extent) return step;
            best = step;
        }
}

int labelStride(double pixels_per_item, double room) {
    if (!(pixels_per_item > 0)) return 1;
    return std::max(1, static_cast<int>(std::ceil(room / pixels_per_item - 1e-9)));
}

namespace {
// Joins parts with separator into lines no wider than room (a part too wide stays alone).
QStringList pack(const QStringList& parts, const QString& separator, const QFontMetricsF& metrics, double room) {
    QStringList lines;
    QString current;
    for (const QString& part : parts) {
        const QString joined = current.isEmpty() ? part : current + separator + part;
        if (!current.isEmpty() && metrics.horizontalAdvance(joined) > room) {
            lines << current;
            current = part;
        } else {
            current = joined;
        }
    }
    lines << current;
    return lines;
}
}  // namespace

QString wrapLines(const QString& text, const QFont& font, double room, bool at_dots) {
    const QFontMetricsF metrics(font);
    // Phrases first (" · ", then the wide gaps between an equation's steps), then words.
    static const QRegularExpression gap(QStringLiteral("   +"));
    QStringList lines = text.split(QLatin1Char('\n'));
    const auto refine = [&](const QStringList& in, const auto& split, const QString& separator) {
        QStringList out;
        for (const QString& line : in)
            out << (metrics.horizontalAdvance(line) <= room ? QStringList{line} : pack(split(line), separator, metrics, room));
        return out;
    };
    if (at_dots) lines = refine(lines, [](const QString& l) { return l.split(QStringLiteral(" · ")); }, QStringLiteral(" · "));
    lines = refine(lines, [](const QString& l) { return l.split(gap, Qt::SkipEmptyParts); }, QStringLiteral("   "));
    lines = refine(lines, [](const QString& l) { return l.split(QLatin1Char(' ')); }, QStringLiteral(" "));
    return lines.join(QLatin1Char('\n'));
}

QString together(const QString& text) {
    QString joined = text;
    joined.replace(QLatin1Char(' '), QChar(QChar::Nbsp));
    return joined;
}

void layOut(QCustomPlot* plot) {
    QCPLayoutGrid* layout = plot->plotLayout();
    layout->setOuterRect(plot->viewport());
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        layout->update(phase);
}

void setTitle(QCPTextElement* title, const QStringList& variants, const QString& message, double room) {
    if (!message.isEmpty() || variants.isEmpty()) {
        title->setText(wrapLines(message, title->font(), room));
        return;
    }
    const QString fitting = longestThatFits(variants, title->font(), room);
    title->setText(fitting.isEmpty() ? variants.back() : fitting);
}

void legendBelow(QCustomPlot* plot, int per_row) {
    QCPLegend* legend = plot->legend;
    legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(legend);
    plot->plotLayout()->addElement(1, 0, legend);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setWrap(per_row);  // before the fill order, which rearranges the entries by it (setWrap alone does not)
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 2));
    legend->setIconSize(18, 8);
}

QString fitAxisLabel(QCPAxis* axis, const QStringList& variants) {
    if (variants.isEmpty()) return {};
    const QFontMetricsF metrics(axis->labelFont());
    const QRect rect = axis->axisRect()->rect();
    const bool vertical = axis->orientation() == Qt::Vertical;
    const double room = vertical ? rect.height() : rect.width();
    QString chosen = variants.back();
    for (const QString& v : variants) {
        double widest = 0;
        for (const QString& line : v.split(QLatin1Char('\n'))) widest = std::max(widest, metrics.horizontalAdvance(line));
        if (widest <= room) {
            chosen = v;
            break;
        }
    }
    if (axis->label() != chosen) axis->setLabel(chosen);
    return chosen;
}

void fitTickCount(QCPAxis* axis) {
    const int tall = 2 * QFontMetrics(axis->tickLabelFont()).height();
    axis->ticker()->setTickCount(std::clamp(axis->axisRect()->rect().height() / std::max(tall, 1), 2, 5));
}

}  // namespace headscope::ui::fit
