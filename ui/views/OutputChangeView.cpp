#include "OutputChangeView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "Heatmap.h"
#include "TextFit.h"
#include "TokenAxis.h"

namespace headscope::ui {

namespace {
const QColor kOutput(150, 150, 150);
const QColor kChange(200, 40, 40);

QString headList(const std::vector<int>& heads) {
    QStringList names;
    for (int h : heads) names << QString::number(h);
    return names.join(QStringLiteral(", "));
}
}  // namespace

OutputChangeView::OutputChangeView(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("output_change_view"));
    setInteractions(QCP::Interactions());
    setMinimumSize(240, 160);
    setMouseTracking(true);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, title_);
    heatmap::styleAxes(axisRect());
    yAxis->grid()->setVisible(true);
    yAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    yAxis->setLabel(tr("norm of the layer's output row"));
    output_ = new QCPBars(xAxis, yAxis);
    change_ = new QCPBars(xAxis, yAxis);
    group_ = new QCPBarsGroup(this);
    group_->setSpacingType(QCPBarsGroup::stAbsolute);
    group_->setSpacing(1);
    output_->setBarsGroup(group_);
    change_->setBarsGroup(group_);
    output_->setWidth(0.42);
    change_->setWidth(0.42);
    output_->setPen(Qt::NoPen);
    change_->setPen(Qt::NoPen);
    output_->setBrush(kOutput);
    change_->setBrush(kChange);
    output_->setName(tr("‖output‖ intact"));
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 2));
    legend->clearItems();
    legend->addItem(new QCPPlottableLegendItem(legend, output_));
    legend->addItem(new QCPPlottableLegendItem(legend, change_));
    setOptions(options_);
    deferred_ = new DeferredRefresh(this, [this]() { refresh(); });
}

void OutputChangeView::setAblation(std::shared_ptr<const model::LayerAblation> ablation, const QStringList& tokens) {
    ablation_ = std::move(ablation);
    labels_ = tokens;
    deferred_->request();
}

void OutputChangeView::setOptions(const ViewOptions& options) {
    options_ = options;
    title_->setFont(heatmap::font(12, options.font_scale, true));
    yAxis->setLabelFont(heatmap::font(10, options.font_scale));
    yAxis->setTickLabelFont(heatmap::font(9, options.font_scale));
    legend->setFont(heatmap::font(9, options.font_scale));
    fitLabels();
    replot(rpQueuedReplot);
}

void OutputChangeView::refresh() {
    output_->data()->clear();
    change_->data()->clear();
    title_variants_.clear();
    message_.clear();
    const model::LayerAblation* a = ablation_.get();
    if (!a || a->heads.empty())
        message_ = tr("Right-click a head (Heads tab, rank table) to knock it out and see how this layer's output changes");
    axisRect()->setVisible(message_.isEmpty());
    legend->setVisible(message_.isEmpty());
    if (message_.isEmpty()) {
        double highest = 0;
        for (Eigen::Index p = 0; p < a->change.size(); ++p) {
            output_->addData(double(p), a->before_norm(p));
            change_->addData(double(p), a->change(p));
            highest = std::max({highest, a->before_norm(p), a->change(p)});
        }
        const QString heads = headList(a->heads);
        const QString mode = a->mode == model::AblationMode::Mean ? tr("mean") : tr("zero");
        change_->setName(tr("‖change‖ with head %1 off (%2)").arg(heads, mode));
        xAxis->setRange(-0.6, double(a->change.size()) - 0.4);
        yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1.0);
        const QString percent = QString::number(100 * a->relative_change, 'f', 1);
        title_variants_ = {
            tr("Head %1 off (%2): output = concat W_O + b_O recomputed; largest change %3, %4 % of the whole "
               "output; the other heads unchanged (differ by %5)")
                .arg(heads, mode).arg(a->max_change, 0, 'g', 3).arg(percent).arg(a->other_heads_max_difference, 0, 'g', 2),
            tr("Head %1 off (%2): largest change %3, %4 % of the output").arg(heads, mode).arg(a->max_change, 0, 'g', 3)
                .arg(percent),
            tr("%1 off: %2 % of the output").arg(heads, percent)};
    }
    fitLabels();
    replot(rpQueuedReplot);
}

void OutputChangeView::fitLabels() {
    fit::setTitle(title_, title_variants_, message_, viewport().width() - 8);
    if (!message_.isEmpty() || title_variants_.isEmpty()) return;
    fit::layOut(this);
    setTokenTicks(xAxis, labels_, heatmap::font(9, options_.font_scale), axisRect()->width());
}

void OutputChangeView::resizeEvent(QResizeEvent* event) {
    setViewport(QRect(QPoint(0, 0), event->size()));
    fitLabels();
    QCustomPlot::resizeEvent(event);
}

void OutputChangeView::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    const model::LayerAblation* a = ablation_.get();
    if (!a || !message_.isEmpty() || !axisRect()->rect().contains(event->position().toPoint())) return;
    const int p = static_cast<int>(std::lround(xAxis->pixelToCoord(event->position().x())));
    if (p < 0 || p >= a->change.size()) return;
    const QString word = p < labels_.size() ? labels_[p] : QString();
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("position %1 “%2”: ‖output‖ %3, ‖change‖ %4 (%5 %)")
                           .arg(p).arg(word).arg(a->before_norm(p), 0, 'g', 4).arg(a->change(p), 0, 'g', 4)
                           .arg(a->before_norm(p) > 0 ? 100 * a->change(p) / a->before_norm(p) : 0.0, 0, 'f', 1),
                       this);
}

}  // namespace headscope::ui
