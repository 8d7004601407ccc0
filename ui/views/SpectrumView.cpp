#include "SpectrumView.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "Heatmap.h"

namespace headscope::ui {
namespace {

constexpr double kTitlePt = 14, kAxisPt = 11, kTickPt = 10, kLegendPt = 9.5;

// Okabe & Ito's colour-blind-safe palette (yellow left out: too pale on white), then hues.
QColor headColor(int head) {
    static const QColor base[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                  QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                  QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                  QColor(0x00, 0x00, 0x00)};
    constexpr int n = static_cast<int>(std::size(base));
    if (head < n) return base[head];
    const double hue = std::fmod(0.13 + (head - n) * 0.618033988749895, 1.0);
    return QColor::fromHslF(static_cast<float>(hue), 0.65f, 0.42f);
}

void styleLogAxes(QCPAxisRect* rect) {
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    y->setTicker(ticker);
    y->setNumberFormat(QStringLiteral("eb"));  // 10^-15 written as a power
    y->setNumberPrecision(0);
    y->setLabel(QStringLiteral("singular value σᵢ (log scale)"));
    y->grid()->setSubGridVisible(false);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    auto fixed = QSharedPointer<QCPAxisTickerFixed>::create();
    fixed->setTickStep(1.0);
    fixed->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    fixed->setTickCount(8);
    x->setTicker(fixed);
    x->setSubTicks(false);
    x->setLabel(QStringLiteral("index i (largest first)"));
    QCPAxis* top = rect->axis(QCPAxis::atTop);
    top->setVisible(true);
    top->setTicks(false);
    top->setTickLabels(false);
    top->setBasePen(Qt::NoPen);
}

QString headList(const std::vector<int>& heads) {
    if (heads.size() == 1) return QStringLiteral("head %1").arg(heads.front());
    bool contiguous = true;
    for (std::size_t i = 1; i < heads.size(); ++i) contiguous &= heads[i] == heads[i - 1] + 1;
    if (contiguous) return QStringLiteral("heads %1–%2").arg(heads.front()).arg(heads.back());
    return QStringLiteral("%1 heads").arg(heads.size());
}

}  // namespace

SpectrumView::SpectrumView(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    plot_->setMinimumSize(360, 240);
    plot_->plotLayout()->clear();  // drops the default axis rect and its legend
    title_ = new QCPTextElement(plot_, QStringLiteral("No analysis yet"));
    title_->setMargins(QMargins(0, 6, 0, 2));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* row = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, row);
    row->setColumnSpacing(16);
    qk_rect_ = new QCPAxisRect(plot_, true);
    ov_rect_ = new QCPAxisRect(plot_, true);
    auto* group = new QCPMarginGroup(plot_);
    for (QCPAxisRect* rect : {qk_rect_, ov_rect_}) {
        styleLogAxes(rect);
        rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    }
    qk_rect_->axis(QCPAxis::atTop)->setLabel(QStringLiteral("W_QK,i = W_i^Q (W_i^K)^T"));
    ov_rect_->axis(QCPAxis::atTop)->setLabel(QStringLiteral("W_OV,i = W_i^V W_i^O"));
    row->addElement(0, 0, qk_rect_);
    row->addElement(0, 1, ov_rect_);
    // Legends sit at the right middle: the curves run along the top, the tolerance line
    // along the bottom. Heads of equal rank share one row (kMaxLegendRows).
    for (QCPLegend** legend : {&qk_legend_, &ov_legend_}) {
        *legend = new QCPLegend;
        (legend == &qk_legend_ ? qk_rect_ : ov_rect_)
            ->insetLayout()
            ->addElement(*legend, Qt::AlignRight | Qt::AlignVCenter);
        (*legend)->setLayer(QStringLiteral("legend"));
        (*legend)->setBrush(QColor(255, 255, 255, 220));
        (*legend)->setBorderPen(QPen(QColor(160, 160, 160)));
    }

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    applyFonts();
}

QCPGraph* SpectrumView::qkGraph(int head) const {
    return head >= 0 && head < qk_graphs_.size() ? qk_graphs_[head] : nullptr;
}

QCPGraph* SpectrumView::ovGraph(int head) const {
    return head >= 0 && head < ov_graphs_.size() ? ov_graphs_[head] : nullptr;
}

void SpectrumView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    // Same weights and tolerance: the same spectra are on screen already.
    const bool unchanged = analysis_ && analysis && analysis_->config.sameWeights(analysis->config) &&
                           analysis_->config.rank_rtol == analysis->config.rank_rtol;
    analysis_ = std::move(analysis);
    if (unchanged) return;
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void SpectrumView::setOptions(const ViewOptions& options) {
    options_ = options;
    applyFonts();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void SpectrumView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void SpectrumView::rebuild(int heads) {
    // Custom legends are not cleaned up by removePlottable: empty them first.
    qk_legend_->clearItems();
    ov_legend_->clearItems();
    plot_->clearGraphs();
    qk_graphs_.clear();
    ov_graphs_.clear();
    for (int h = 0; h < heads; ++h) {
        for (bool qk : {true, false}) {
            QCPAxisRect* rect = qk ? qk_rect_ : ov_rect_;
            QCPGraph* graph = plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            const QColor color = headColor(h);
            graph->setPen(QPen(color, 1.6));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 5));
            (qk ? qk_graphs_ : ov_graphs_).push_back(graph);
        }
    }
}

void SpectrumView::refresh() {
    plot_->clearItems();
    const int heads = analysis_ ? static_cast<int>(analysis_->spectra.size()) : 0;
    if (heads != static_cast<int>(qk_graphs_.size())) rebuild(heads);
    if (!analysis_ || heads == 0) {
        title_->setText(QStringLiteral("No analysis yet"));
        return;
    }
    title_->setText(QStringLiteral("Singular values of each head's bilinear maps · %1 heads").arg(heads));
    fillPanel(true);
    fillPanel(false);
}

void SpectrumView::fillPanel(bool qk) {
    const Analysis& a = *analysis_;
    QCPAxisRect* rect = qk ? qk_rect_ : ov_rect_;
    QCPLegend* legend = qk ? qk_legend_ : ov_legend_;
    const QVector<QCPGraph*>& graphs = qk ? qk_graphs_ : ov_graphs_;
    const int bound = qk ? a.config.headDimK() : a.config.headDimV();
    const int heads = static_cast<int>(graphs.size());
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);

    double lowest = HUGE_VAL, highest = 0, tolerance = 0;
    int longest = 0;
    std::map<int, std::vector<int>> by_rank;
    legend->clearItems();
    for (int h = 0; h < heads; ++h) {
        const Spectrum& s = qk ? a.spectra[static_cast<std::size_t>(h)].qk : a.spectra[static_cast<std::size_t>(h)].ov;
        QVector<double> keys, values;
        for (Eigen::Index i = 0; i < s.singular_values.size(); ++i) {
            const double v = s.singular_values(i);
            if (!(v > 0) || !std::isfinite(v)) continue;  // exact zeros have no place on a log axis
            keys.push_back(static_cast<double>(i + 1));
            values.push_back(v);
            lowest = std::min(lowest, v);
            highest = std::max(highest, v);
        }
        longest = std::max(longest, static_cast<int>(s.singular_values.size()));
        tolerance = std::max(tolerance, s.tolerance);
        graphs[h]->setData(keys, values, true);
        graphs[h]->setName(QStringLiteral("head %1: rank %2").arg(h).arg(s.rank));
        by_rank[s.rank].push_back(h);
        if (heads <= kMaxLegendRows) graphs[h]->addToLegend(legend);
    }
    if (heads > kMaxLegendRows) {
        for (const auto& [rank, members] : by_rank) {
            QCPGraph* first = graphs[members.front()];
            first->setName(QStringLiteral("%1: rank %2").arg(headList(members)).arg(rank));
            first->addToLegend(legend);
        }
    }
    if (highest <= 0) lowest = highest = 1;
    if (tolerance > 0) lowest = std::min(lowest, tolerance);

    const double right = std::max(longest, bound) + 0.5 + std::max(2.0, 0.4 * bound);
    x->setRange(0.5, right);
    y->setRange(lowest / 20, highest * 4);

    const QPen bound_pen(QColor(60, 60, 60), 1.4, Qt::DashLine);
    auto* vline = new QCPItemStraightLine(plot_);
    vline->setClipAxisRect(rect);
    vline->setPen(bound_pen);
    for (QCPItemPosition* p : {vline->point1, vline->point2}) p->setAxes(x, y);
    vline->point1->setCoords(bound + 0.5, lowest);
    vline->point2->setCoords(bound + 0.5, highest);
    auto* vtext = new QCPItemText(plot_);
    vtext->setClipAxisRect(rect);
    vtext->position->setAxisRect(rect);
    vtext->position->setAxes(x, y);
    vtext->position->setTypeX(QCPItemPosition::ptPlotCoords);
    vtext->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    vtext->position->setCoords(bound + 0.5, 0.02);
    vtext->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    vtext->setPadding(QMargins(4, 0, 0, 0));
    vtext->setBrush(QColor(255, 255, 255, 230));
    vtext->setText(QStringLiteral("rank ≤ %1 = %2").arg(qk ? "d_k" : "d_v").arg(bound));
    vtext->setFont(heatmap::font(kTickPt, options_.font_scale));

    if (tolerance > 0) {
        auto* hline = new QCPItemStraightLine(plot_);
        hline->setClipAxisRect(rect);
        hline->setPen(QPen(QColor(200, 40, 40), 1.2, Qt::DotLine));
        for (QCPItemPosition* p : {hline->point1, hline->point2}) p->setAxes(x, y);
        hline->point1->setCoords(0, tolerance);
        hline->point2->setCoords(1, tolerance);
        auto* htext = new QCPItemText(plot_);
        htext->setClipAxisRect(rect);
        htext->position->setAxisRect(rect);
        htext->position->setAxes(x, y);
        htext->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        htext->position->setTypeY(QCPItemPosition::ptPlotCoords);
        htext->position->setCoords(0.02, tolerance);
        htext->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        htext->setColor(QColor(170, 30, 30));
        htext->setBrush(QColor(255, 255, 255, 230));
        htext->setText(QStringLiteral("rank tolerance %1: smaller values count as 0")
                           .arg(QString::number(tolerance, 'g', 2)));
        htext->setFont(heatmap::font(kTickPt - 1, options_.font_scale));
    }
}

void SpectrumView::applyFonts() {
    const double s = options_.font_scale;
    title_->setFont(heatmap::font(kTitlePt, s, true));
    for (QCPAxisRect* rect : {qk_rect_, ov_rect_}) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelFont(heatmap::font(kTickPt, s));
            axis->setLabelFont(heatmap::font(kAxisPt, s, axis->axisType() == QCPAxis::atTop));
        }
    }
    for (QCPLegend* legend : {qk_legend_, ov_legend_}) legend->setFont(heatmap::font(kLegendPt, s));
}

}  // namespace headscope::ui
