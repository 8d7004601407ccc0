#include "TokenBarStrip.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <cmath>

#include "Heatmap.h"
#include "TextFit.h"
#include "TokenAxis.h"
#include "TypesetTitle.h"

namespace headscope::ui {

TokenBarStrip::TokenBarStrip(QWidget* parent, const QString& object_name, const QString& y_label)
    : QCustomPlot(parent) {
    setObjectName(object_name);
    setInteractions(QCP::Interactions());
    setMinimumSize(240, 160);
    setMouseTracking(true);
    plotLayout()->insertRow(0);
    title_ = new TypesetTitle(this, QString());
    plotLayout()->addElement(0, 0, title_);
    heatmap::styleAxes(axisRect());
    yAxis->grid()->setVisible(true);
    yAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    yAxis->setLabel(y_label);
    first_ = new QCPBars(xAxis, yAxis);
    second_ = new QCPBars(xAxis, yAxis);
    group_ = new QCPBarsGroup(this);
    group_->setSpacingType(QCPBarsGroup::stAbsolute);
    group_->setSpacing(1);
    first_->setBarsGroup(group_);
    second_->setBarsGroup(group_);
    first_->setPen(Qt::NoPen);
    second_->setPen(Qt::NoPen);
    // The legend in a row of its own under the strip: inside it would hide bars.
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 2));
    legend->clearItems();
    legend->addItem(new QCPPlottableLegendItem(legend, first_));
    legend->addItem(new QCPPlottableLegendItem(legend, second_));
    setOptions(options_);
    deferred_ = new DeferredRefresh(this, [this]() { refresh(); });
}

void TokenBarStrip::setOptions(const ViewOptions& options) {
    options_ = options;
    title_->setFont(heatmap::font(12, options.font_scale, true));
    yAxis->setLabelFont(heatmap::font(10, options.font_scale));
    yAxis->setTickLabelFont(heatmap::font(9, options.font_scale));
    legend->setFont(heatmap::font(9, options.font_scale));
    fitAndReplot();
}

void TokenBarStrip::fitAndReplot() {
    fitLabels();
    replot(rpQueuedReplot);
}

void TokenBarStrip::fitLabels() {
    fit::setTitle(title_, title_variants_, message_, viewport().width() - 8);
    if (!message_.isEmpty() || title_variants_.isEmpty()) return;
    fit::layOut(this);
    setTokenTicks(xAxis, labels_, heatmap::font(9, options_.font_scale), axisRect()->width());
}

void TokenBarStrip::resizeEvent(QResizeEvent* event) {
    setViewport(QRect(QPoint(0, 0), event->size()));
    fitLabels();
    QCustomPlot::resizeEvent(event);
}

void TokenBarStrip::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    if (!message_.isEmpty() || !axisRect()->rect().contains(event->position().toPoint())) return;
    const QString text = tipAt(static_cast<int>(std::lround(xAxis->pixelToCoord(event->position().x()))));
    if (!text.isEmpty()) QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

}  // namespace headscope::ui
