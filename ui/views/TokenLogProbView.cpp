#include "TokenLogProbView.h"

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
const QColor kBefore(150, 150, 150);
const QColor kAfter(230, 120, 20);
const QColor kIntact(40, 110, 180);

QString headList(const model::Ablation& ablation) {
    QStringList names;
    for (const model::HeadRef& h : ablation.heads) names << QString::fromStdString(model::toString(h));
    return names.join(QStringLiteral(", "));
}
}  // namespace

TokenLogProbView::TokenLogProbView(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("token_logprob_view"));
    setInteractions(QCP::Interactions());
    setMinimumSize(240, 160);
    setMouseTracking(true);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, title_);
    heatmap::styleAxes(axisRect());
    // 0 at the top, each bar hanging down to its log-probability: the longer, the more surprised.
    yAxis->setRangeReversed(false);
    yAxis2->setRangeReversed(false);
    yAxis->grid()->setVisible(true);
    yAxis->grid()->setPen(QPen(QColor(220, 220, 220), 1, Qt::DotLine));
    yAxis->setLabel(tr("log p of the actual next token"));
    before_ = new QCPBars(xAxis, yAxis);
    after_ = new QCPBars(xAxis, yAxis);
    group_ = new QCPBarsGroup(this);
    group_->setSpacingType(QCPBarsGroup::stAbsolute);
    group_->setSpacing(1);
    before_->setBarsGroup(group_);
    after_->setBarsGroup(group_);
    after_->setPen(Qt::NoPen);
    after_->setBrush(kAfter);
    before_->setPen(Qt::NoPen);
    // The legend in a row of its own under the strip: inside it would hide bars.
    legend->setVisible(false);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 0, 4, 2));
    setOptions(options_);
    deferred_ = new DeferredRefresh(this, [this]() { refresh(); });
}

void TokenLogProbView::setEffects(std::shared_ptr<const model::AblationEffects> effects) {
    effects_ = std::move(effects);
    deferred_->request();
}

void TokenLogProbView::setOptions(const ViewOptions& options) {
    options_ = options;
    title_->setFont(heatmap::font(12, options.font_scale, true));
    yAxis->setLabelFont(heatmap::font(10, options.font_scale));
    yAxis->setTickLabelFont(heatmap::font(9, options.font_scale));
    legend->setFont(heatmap::font(9, options.font_scale));
    fitLabels();
    replot(rpQueuedReplot);
}

void TokenLogProbView::refresh() {
    before_->data()->clear();
    after_->data()->clear();
    title_variants_.clear();
    message_.clear();
    const model::AblationEffects* e = effects_.get();
    if (!e) {
        message_ = tr("Open a model (File > Open model) to see how well it predicts each token of the text");
    } else if (!e->has_logprobs) {
        message_ = tr("The text is too long to compute every position's logits here: shorten it to see each token's "
                      "log-probability");
    } else if (e->before.tokens.empty()) {
        message_ = tr("One token: there is no next token of the text to predict. Type more.");
    }
    const bool ablated = e && !e->ablation.empty();
    axisRect()->setVisible(message_.isEmpty());
    legend->setVisible(message_.isEmpty() && ablated);
    if (message_.isEmpty()) {
        labels_.clear();
        for (const std::string& t : e->tokens) labels_ << QString::fromStdString(t);
        double lowest = 0;
        for (std::size_t i = 0; i < e->before.tokens.size(); ++i) {
            const model::TokenLogProb& b = e->before.tokens[i];
            const model::TokenLogProb& a = e->after.tokens[i];
            before_->addData(b.position, b.logprob);
            if (ablated) after_->addData(a.position, a.logprob);
            lowest = std::min({lowest, b.logprob, a.logprob});
        }
        // One bar per token, or two side by side (the group) with heads off.
        before_->setBarsGroup(ablated ? group_ : nullptr);
        before_->setWidth(ablated ? 0.42 : 0.8);
        after_->setWidth(0.42);
        before_->setBrush(ablated ? kBefore : kIntact);
        before_->setName(tr("intact"));
        after_->setName(tr("%1 off").arg(headList(e->ablation)));
        after_->setVisible(ablated);
        if (legend->itemCount() == 0) {
            legend->addItem(new QCPPlottableLegendItem(legend, before_));
            legend->addItem(new QCPPlottableLegendItem(legend, after_));
        }
        xAxis->setRange(0.4, double(e->tokens.size()) - 0.4);
        yAxis->setRange(std::min(-1.0, lowest * 1.08), 0);
        const model::TokenLogProbs& b = e->before;
        const model::TokenLogProbs& a = e->after;
        if (ablated) {
            const QString mode = QString::fromUtf8(model::toString(e->ablation.mode));
            const QString change = (e->lossChange() >= 0 ? QStringLiteral("+") : QStringLiteral("−")) +
                                   QString::number(std::abs(e->lossChange()), 'f', 3);
            title_variants_ = {
                tr("Log-probability of each actual next token: loss %1 → %2 (%3) with %4 off (%5)")
                    .arg(b.loss, 0, 'f', 3).arg(a.loss, 0, 'f', 3).arg(change, headList(e->ablation), mode),
                tr("loss %1 → %2 (%3) with %4 off").arg(b.loss, 0, 'f', 3).arg(a.loss, 0, 'f', 3)
                    .arg(change, headList(e->ablation)),
                tr("loss %1 → %2").arg(b.loss, 0, 'f', 2).arg(a.loss, 0, 'f', 2)};
        } else {
            title_variants_ = {tr("Log-probability of each actual next token: loss %1 · right-click a head to knock it out")
                                   .arg(b.loss, 0, 'f', 3),
                               tr("Log-probability of each next token: loss %1").arg(b.loss, 0, 'f', 3),
                               tr("loss %1").arg(b.loss, 0, 'f', 2)};
        }
    }
    fitLabels();
    replot(rpQueuedReplot);
}

void TokenLogProbView::fitLabels() {
    fit::setTitle(title_, title_variants_, message_, viewport().width() - 8);
    if (!message_.isEmpty() || title_variants_.isEmpty()) return;
    fit::layOut(this);
    setTokenTicks(xAxis, labels_, heatmap::font(9, options_.font_scale), axisRect()->width());
}

void TokenLogProbView::resizeEvent(QResizeEvent* event) {
    setViewport(QRect(QPoint(0, 0), event->size()));
    fitLabels();
    QCustomPlot::resizeEvent(event);
}

void TokenLogProbView::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    const model::AblationEffects* e = effects_.get();
    if (!e || !message_.isEmpty() || !axisRect()->rect().contains(event->position().toPoint())) return;
    const int p = static_cast<int>(std::lround(xAxis->pixelToCoord(event->position().x())));
    if (p < 1 || p > static_cast<int>(e->before.tokens.size())) return;
    const model::TokenLogProb& b = e->before.tokens[std::size_t(p - 1)];
    const model::TokenLogProb& a = e->after.tokens[std::size_t(p - 1)];
    QString text = tr("position %1 “%2”: log p %3 (p = %4)%5")
                       .arg(p).arg(QString::fromStdString(b.token)).arg(b.logprob, 0, 'f', 3)
                       .arg(std::exp(b.logprob), 0, 'f', 3).arg(b.top ? tr(", the first choice") : QString());
    if (!e->ablation.empty())
        text += tr("\nwith %1 off: log p %2 (p = %3)%4").arg(headList(e->ablation)).arg(a.logprob, 0, 'f', 3)
                    .arg(std::exp(a.logprob), 0, 'f', 3).arg(a.top ? tr(", the first choice") : QString());
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

}  // namespace headscope::ui
