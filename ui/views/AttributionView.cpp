#include "AttributionView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <cmath>

#include "ColorMaps.h"
#include "ColourBarTicker.h"
#include "Heatmap.h"
#include "TextFit.h"
#include "TypesetTitle.h"

namespace headscope::ui {

AttributionView::AttributionView(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("attribution_view"));
    setInteractions(QCP::Interactions());
    setMinimumSize(240, 160);
    setMouseTracking(true);
    plotLayout()->insertRow(0);
    title_ = new TypesetTitle(this, QString());
    plotLayout()->addElement(0, 0, title_);
    heatmap::styleAxes(axisRect());
    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setInterpolate(false);
    // Row 1 holds the heatmap and its colour bar side by side, so the title above spans both.
    scale_ = new QCPColorScale(this);
    ColourBarTicker::install(scale_);
    auto* row = new QCPLayoutGrid;
    QCPAxisRect* rect = axisRect();
    plotLayout()->take(rect);
    plotLayout()->simplify();
    plotLayout()->addElement(1, 0, row);
    row->addElement(0, 0, rect);
    row->addElement(0, 1, scale_);
    map_->setColorScale(scale_);  // the map takes the scale's gradient: set it after
    map_->setGradient(redBlueGradient());
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    yAxis->setRangeReversed(true);  // layer 0 at the top, as in the model overview
    xAxis->setLabel(tr("head"));
    yAxis->setLabel(tr("layer"));
    setOptions(options_);
    deferred_ = new DeferredRefresh(this, [this]() { refresh(); });
}

void AttributionView::setEffects(std::shared_ptr<const model::AblationEffects> effects) {
    effects_ = std::move(effects);
    deferred_->request();
}

void AttributionView::setOptions(const ViewOptions& options) {
    options_ = options;
    title_->setFont(heatmap::font(12, options.font_scale, true));
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setLabelFont(heatmap::font(10, options.font_scale));
        axis->setTickLabelFont(heatmap::font(9, options.font_scale));
    }
    scale_->axis()->setTickLabelFont(heatmap::font(9, options.font_scale));
    scale_->axis()->setLabelFont(heatmap::font(9, options.font_scale));
    for (QCPItemText* text : cell_texts_) text->setFont(heatmap::font(9, options.font_scale));
    fitLabels();
    replot(rpQueuedReplot);
}

void AttributionView::refresh() {
    for (QCPItemText* text : cell_texts_) removeItem(text);
    cell_texts_.clear();
    title_variants_.clear();
    const model::AblationEffects* e = effects_.get();
    message_ = !e ? tr("Open a model (File > Open model) to see what each head writes into the logit of the next token")
               : e->encoder ? tr("An encoder predicts masked tokens, not a next one: the Looks at tab shows what each head "
                                 "looks at, the Loaded model dock the guesses at [MASK]")
                            : QString();
    if (e && e->encoder) e = nullptr;
    axisRect()->setVisible(message_.isEmpty());
    scale_->setVisible(message_.isEmpty());
    if (e) {
        const model::DirectAttribution& a = e->attribution;
        const int L = static_cast<int>(a.heads.rows()), H = static_cast<int>(a.heads.cols());
        QCPColorMapData* data = map_->data();
        data->setSize(H, L);
        data->setRange(QCPRange(0, std::max(0, H - 1)), QCPRange(0, std::max(0, L - 1)));
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) data->setCell(h, l, a.heads(l, h));
        map_->setDataRange(symmetricRange(a.heads.cwiseAbs().maxCoeff()));
        heatmap::setCellRanges(axisRect(), L, H);
        xAxis->setRange(-0.5, H - 0.5);
        yAxis->setRange(-0.5, L - 0.5);
        for (QCPAxis* axis : {xAxis, yAxis}) {
            auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
            ticker->setTickStep(1);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
            axis->setTicker(ticker);
            axis->setSubTicks(false);
        }
        scale_->axis()->setLabel(tr("logit"));
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h) {
                auto* text = new QCPItemText(this);
                text->position->setCoords(h, l);
                text->setFont(heatmap::font(9, options_.font_scale));
                const bool off = e->ablation.contains(l, h);
                text->setText(off ? tr("off\n%1").arg(a.heads(l, h), 0, 'f', 2) : QString::number(a.heads(l, h), 'f', 2));
                // White on the dark ends of the map, dark on its light middle.
                const bool dark = std::abs(a.heads(l, h)) > 0.6 * map_->dataRange().upper;
                text->setColor(dark ? QColor(255, 255, 255) : QColor(30, 30, 30));
                if (off) {
                    text->setPen(QPen(dark ? QColor(255, 255, 255) : QColor(0, 0, 0), 1.5));
                    text->setPadding(QMargins(3, 1, 3, 1));
                }
                cell_texts_.push_back(text);
            }
        const QString token = QStringLiteral("“%1”").arg(QString::fromStdString(e->predicted));
        title_variants_ = {
            tr("Each head's direct contribution to the logit of %1 (the intact model's next token; final norm's scale "
               "frozen) · logit %2").arg(token).arg(a.logit, 0, 'f', 2),
            tr("Each head's direct contribution to the logit of %1").arg(token),
            tr("Direct contribution to %1").arg(token)};
    }
    fitLabels();
    replot(rpQueuedReplot);
}

void AttributionView::fitLabels() {
    fit::setTitle(title_, title_variants_, message_, viewport().width() - 8);
    if (!message_.isEmpty() || title_variants_.isEmpty()) return;
    fit::layOut(this);
    placeCellTexts();
}

void AttributionView::placeCellTexts() {
    // A value is written only where its cell has room for it.
    if (!effects_ || cell_texts_.empty()) return;
    const int L = static_cast<int>(effects_->attribution.heads.rows()), H = static_cast<int>(effects_->attribution.heads.cols());
    const double cell_w = double(axisRect()->width()) / std::max(1, H);
    const double cell_h = double(axisRect()->height()) / std::max(1, L);
    const QFontMetrics metrics(heatmap::font(9, options_.font_scale));
    const bool fits = cell_w >= metrics.horizontalAdvance(QStringLiteral("-0.00")) + 4 && cell_h >= 2 * metrics.height() + 2;
    for (QCPItemText* text : cell_texts_) text->setVisible(fits);
}

void AttributionView::resizeEvent(QResizeEvent* event) {
    setViewport(QRect(QPoint(0, 0), event->size()));
    fitLabels();
    QCustomPlot::resizeEvent(event);
}

bool AttributionView::headAt(const QPoint& pos, int* layer, int* head) const {
    if (!effects_ || !axisRect()->rect().contains(pos)) return false;
    const int h = static_cast<int>(std::lround(xAxis->pixelToCoord(pos.x())));
    const int l = static_cast<int>(std::lround(yAxis->pixelToCoord(pos.y())));
    if (l < 0 || l >= effects_->attribution.heads.rows() || h < 0 || h >= effects_->attribution.heads.cols()) return false;
    *layer = l;
    *head = h;
    return true;
}

void AttributionView::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    int l = 0, h = 0;
    if (!headAt(event->position().toPoint(), &l, &h)) return;
    const model::AblationEffects& e = *effects_;
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("head %1.%2 writes %3 into the logit of “%4”%5")
                           .arg(l).arg(h).arg(e.attribution.heads(l, h), 0, 'f', 4)
                           .arg(QString::fromStdString(e.predicted))
                           .arg(e.ablation.contains(l, h) ? tr(" (knocked out)") : QString()),
                       this);
}

}  // namespace headscope::ui
