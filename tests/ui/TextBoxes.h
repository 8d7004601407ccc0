#pragma once
// Where a plot's texts stand, in plot pixels, as QCustomPlot draws them: the box of a tick label
// on its tick, every tick label of an axis checked inside the plot and apart from its
// neighbours, and the box of an axis' label (a matrix panel's caption, possibly on two lines).
// Shared by the legibility, colour-bar and matrix-shape tests (views only: no window needed), and
// whether an axis' label is whole along its axis (the Training tab's plots, test_training_room).
#include <QFontMetricsF>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

namespace headscope::ui::testing {

inline QString describe(const QRectF& r) {
    return QStringLiteral("(%1, %2, %3 x %4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// The pixel box of a tick label centred on its tick (bottom axis: below the rect; left: to its left).
inline QRectF tickLabelBox(QCPAxis* axis, double tick, const QString& label) {
    const QFontMetricsF metrics(axis->tickLabelFont());
    QSizeF size(metrics.horizontalAdvance(label), metrics.height());
    // Rotated words stand side by side: their inked thickness is what must not touch.
    if (std::abs(std::abs(axis->tickLabelRotation()) - 90) < 1)
        size = QSizeF(metrics.tightBoundingRect(label).height(), metrics.horizontalAdvance(label));
    const QRect rect = axis->axisRect()->rect();
    const double at = axis->coordToPixel(tick);
    const double gap = axis->tickLabelPadding() + axis->tickLengthOut();
    switch (axis->axisType()) {
        case QCPAxis::atBottom: return QRectF(at - size.width() / 2, rect.bottom() + gap, size.width(), size.height());
        case QCPAxis::atTop: return QRectF(at - size.width() / 2, rect.top() - gap - size.height(), size.width(), size.height());
        case QCPAxis::atLeft: return QRectF(rect.left() - gap - size.width(), at - size.height() / 2, size.width(), size.height());
        default: return QRectF(rect.right() + gap, at - size.height() / 2, size.width(), size.height());
    }
}

// The boxes of the tick labels axis draws (those in its range, not empty), in tick order.
inline QList<QRectF> tickLabelBoxes(QCPAxis* axis) {
    QList<QRectF> boxes;
    if (!axis->visible() || !axis->tickLabels()) return boxes;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (int t = 0; t < ticks.size() && t < labels.size(); ++t)
        if (axis->range().contains(ticks[t]) && !labels[t].isEmpty()) boxes << tickLabelBox(axis, ticks[t], labels[t]);
    return boxes;
}

// The tick labels of axis inside the viewport and apart from each other; returns how many.
inline int checkTickLabels(QCPAxis* axis, const QRect& viewport, const QString& where) {
    if (!axis->visible() || !axis->tickLabels()) return 0;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    QVector<QRectF> boxes;
    for (int t = 0; t < ticks.size(); ++t) {
        if (!axis->range().contains(ticks[t]) || labels[t].isEmpty()) continue;
        const QRectF box = tickLabelBox(axis, ticks[t], labels[t]);
        if (!QRectF(viewport).adjusted(-1, -1, 1, 1).contains(box)) {
            QTest::qFail(qPrintable(where + ": tick label " + labels[t] + " " + describe(box) + " leaves the plot " +
                                    describe(viewport)), __FILE__, __LINE__);
            return -1;
        }
        for (const QRectF& other : boxes)
            if (box.intersects(other)) {
                QTest::qFail(qPrintable(where + ": tick label " + labels[t] + " " + describe(box) + " overlaps its neighbour " +
                                        describe(other)), __FILE__, __LINE__);
                return -1;
            }
        boxes << box;
    }
    return static_cast<int>(boxes.size());
}

// The box of a bottom axis' label (every line of it, centred on the rect as QCustomPlot draws
// it), under the axis' tick labels: a matrix panel's caption ("d_k" over "drawn 4:1, true 8:1").
inline QRectF bottomLabelBox(QCPAxis* axis) {
    const QFontMetricsF label(axis->labelFont()), ticks(axis->tickLabelFont());
    const QRect rect = axis->axisRect()->rect();
    double width = 0;
    const QStringList lines = axis->label().split(QLatin1Char('\n'));
    for (const QString& line : lines) width = std::max(width, label.horizontalAdvance(line));
    const double top = rect.bottom() + axis->offset() + axis->tickLengthOut() + axis->tickLabelPadding() +
                       (axis->tickLabels() ? ticks.height() : 0) + axis->labelPadding();
    return QRectF(rect.left() + rect.width() / 2.0 - width / 2, top, width, lines.size() * label.height());
}

// The box of an axis' label on the other sides: the top axis' over its tick labels (a matrix
// panel's title), the left and right axes' turned a quarter beside theirs, centred on the rect.
// An empty box where the label is empty.
inline QRectF sideLabelBox(QCPAxis* axis) {
    if (axis->label().isEmpty() || !axis->visible()) return {};
    const QFontMetricsF label(axis->labelFont());
    const QRect rect = axis->axisRect()->rect();
    double across = 0;  // the tick labels' extent away from the rect
    for (const QRectF& box : tickLabelBoxes(axis))
        across = std::max(across, axis->orientation() == Qt::Horizontal ? box.height() : box.width());
    const QStringList lines = axis->label().split(QLatin1Char('\n'));
    double along = 0;
    for (const QString& line : lines) along = std::max(along, label.horizontalAdvance(line));
    const double thick = lines.size() * label.height();
    const double gap = axis->offset() + axis->tickLengthOut() + (across > 0 ? axis->tickLabelPadding() + across : 0) + axis->labelPadding();
    switch (axis->axisType()) {
        case QCPAxis::atTop: return QRectF(rect.left() + rect.width() / 2.0 - along / 2, rect.top() - gap - thick, along, thick);
        case QCPAxis::atLeft: return QRectF(rect.left() - gap - thick, rect.top() + rect.height() / 2.0 - along / 2, thick, along);
        case QCPAxis::atRight: return QRectF(rect.right() + gap, rect.top() + rect.height() / 2.0 - along / 2, thick, along);
        default: return bottomLabelBox(axis);
    }
}

// Every text of a plot with its box: each axis rect's and colour bar's tick labels and axis
// labels, and each text element's lines (a title), for "no two texts overlap".
inline QList<std::pair<QString, QRectF>> plotTexts(QCustomPlot* plot) {
    QList<std::pair<QString, QRectF>> texts;
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (!element || !element->visible() || !element->layout()) continue;
        if (auto* title = qobject_cast<QCPTextElement*>(element)) {
            const QFontMetricsF metrics(title->font());
            const QStringList lines = title->text().split(QLatin1Char('\n'));
            double width = 0;
            for (const QString& line : lines) width = std::max(width, metrics.horizontalAdvance(line));
            const QRect r = title->rect();
            const double height = lines.size() * metrics.height();
            texts.append({title->text(), QRectF(r.center().x() - width / 2, r.center().y() - height / 2, width, height)});
            continue;
        }
        QList<QCPAxis*> axes;
        if (auto* rect = qobject_cast<QCPAxisRect*>(element); rect && !rect->rect().isEmpty()) axes = rect->axes();
        if (auto* bar = qobject_cast<QCPColorScale*>(element); bar && !bar->rect().isEmpty()) axes = {bar->axis()};
        for (QCPAxis* axis : axes) {
            if (!axis->visible()) continue;
            const QVector<double> ticks = axis->tickVector();
            const QVector<QString> labels = axis->tickVectorLabels();
            if (axis->tickLabels())
                for (int t = 0; t < ticks.size() && t < labels.size(); ++t)
                    if (axis->range().contains(ticks[t]) && !labels[t].isEmpty()) texts.append({labels[t], tickLabelBox(axis, ticks[t], labels[t])});
            if (!axis->label().isEmpty()) texts.append({axis->label(), sideLabelBox(axis)});
        }
    }
    return texts;
}

// The first two texts of plot whose boxes overlap, described; "" when none do.
inline QString overlappingTexts(QCustomPlot* plot) {
    const QList<std::pair<QString, QRectF>> texts = plotTexts(plot);
    for (qsizetype i = 0; i < texts.size(); ++i)
        for (qsizetype j = i + 1; j < texts.size(); ++j)
            if (texts[i].second.intersects(texts[j].second))
                return QStringLiteral("'%1' %2 and '%3' %4 overlap")
                    .arg(texts[i].first, describe(texts[i].second), texts[j].first, describe(texts[j].second));
    return {};
}

// Empty when every line of the axis' label fits the length of its axis rect along the axis (its
// height for a left or right axis, as QCustomPlot draws a vertical label turned) and the rect
// with its labelled margins lies within the plot; else what is cut, in words.
inline QString cutAxisLabel(QCPAxis* axis) {
    if (!axis->visible() || axis->label().isEmpty()) return {};
    const QFontMetricsF metrics(axis->labelFont());
    const QRect rect = axis->axisRect()->rect();
    const double room = axis->orientation() == Qt::Vertical ? rect.height() : rect.width();
    for (const QString& line : axis->label().split(QLatin1Char('\n')))
        if (metrics.horizontalAdvance(line) > room + 0.5)
            return QStringLiteral("axis label line \"%1\" is %2 px long, its axis %3 px").arg(line).arg(metrics.horizontalAdvance(line)).arg(room);
    const QRect outer = axis->axisRect()->outerRect();
    if (!axis->parentPlot()->viewport().adjusted(-1, -1, 1, 1).contains(outer))
        return QStringLiteral("the axis rect with its labels %1 leaves the plot %2").arg(describe(QRectF(outer)), describe(QRectF(axis->parentPlot()->viewport())));
    return {};
}

}  // namespace headscope::ui::testing
