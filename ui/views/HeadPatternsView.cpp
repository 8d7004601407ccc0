#include "HeadPatternsView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <cmath>

#include "ColorMaps.h"
#include "Heatmap.h"
#include "ResultStore.h"
#include "TextFit.h"
#include "TypesetTitle.h"

namespace headscope::ui {

HeadPatternsView::HeadPatternsView(QWidget* parent) : AttentionView(FollowsAnalysis, parent), plot_(new QCustomPlot(this)) {
    drawsResults({ResultKind::HeadPatterns});
    setObjectName(QStringLiteral("head_patterns"));
    setMinimumSize(240, 160);
    pattern_box_ = new QComboBox(this);
    pattern_box_->setObjectName(QStringLiteral("head_pattern"));
    for (model::HeadPattern p : model::allHeadPatterns())
        pattern_box_->addItem(QString::fromStdString(model::headPatternName(p)), int(p));
    pattern_box_->setCurrentIndex(pattern_box_->findData(int(pattern_)));
    pattern_box_->setToolTip(tr("Which keys count: each cell is the share of that head's attention on them, averaged over the "
                                "queries that have such a key."));
    pattern_label_ = new QLabel(tr("Attention &on:"), this);
    pattern_label_->setBuddy(pattern_box_);
    order_box_ = new QCheckBox(tr("&Sorted"), this);
    order_box_->setObjectName(QStringLiteral("head_pattern_sorted"));
    order_box_->setChecked(sorted_);
    order_box_->setToolTip(tr("The heads as bars sorted by their share, strongest first, instead of the layers × heads grid."));
    auto* row = new QHBoxLayout;
    row->addWidget(pattern_label_);
    row->addWidget(pattern_box_);
    row->addSpacing(12);
    row->addWidget(order_box_);
    row->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(row);
    layout->addWidget(plot_, 1);
    note_ = new NoModelNote(tr("Open a model (File > Open model) to see what each head looks at"), this);
    layout->addWidget(note_, 1);
    for (QWidget* w : {static_cast<QWidget*>(plot_), static_cast<QWidget*>(pattern_label_),
                       static_cast<QWidget*>(pattern_box_), static_cast<QWidget*>(order_box_)})
        w->hide();  // until a model is open (showPlot)
    connect(pattern_box_, &QComboBox::currentIndexChanged, this, [this](int index) {
        setPattern(model::HeadPattern(pattern_box_->itemData(index).toInt()));
    });
    connect(order_box_, &QCheckBox::toggled, this, &HeadPatternsView::setSorted);

    plot_->setObjectName(QStringLiteral("head_patterns_plot"));
    plot_->setInteractions(QCP::Interactions());
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QString());
    title_->setObjectName(QStringLiteral("head_patterns_title"));
    plot_->plotLayout()->addElement(0, 0, title_);
    plot_->installEventFilter(this);
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    rect_ = new QCPAxisRect(plot_, true);
    heatmap::styleAxes(rect_);
    body->addElement(0, 0, rect_);
    scale_ = new QCPColorScale(plot_);
    body->addElement(0, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    scale_->setGradient(viridisGradient());
    scale_->setDataRange(QCPRange(0, 1));
    scale_->setBarWidth(10);
    scale_->axis()->setLabel(tr("share of attention"));
    map_ = new QCPColorMap(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
    map_->setColorScale(scale_);
    map_->setInterpolate(false);
    QCPColorGradient gradient = viridisGradient();
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(viridisNanColor());
    map_->setGradient(gradient);
    rect_->axis(QCPAxis::atBottom)->setLabel(tr("head"));
    rect_->axis(QCPAxis::atLeft)->setLabel(tr("layer"));
    frame_ = new QCPItemRect(plot_);
    frame_->setClipAxisRect(rect_);
    for (QCPItemPosition* p : {frame_->topLeft, frame_->bottomRight}) p->setAxes(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
    frame_->setPen(QPen(QColor(220, 30, 30), 2.5));  // red: seen on viridis' purples and yellows alike
    frame_->setBrush(Qt::NoBrush);
    setOptions(options_);
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        int layer = 0, head = 0;
        if (event->button() == Qt::LeftButton && cellAt(event->position().toPoint(), &layer, &head)) emit cellActivated(layer, head);
    });
}

void HeadPatternsView::setTrace(std::shared_ptr<const model::Trace> trace) {
    trace_ = std::move(trace);
    requestRefresh();
}

void HeadPatternsView::setModelOpen(bool open) {
    model_open_ = open;
    note_->setModelOpen(open);
    requestRefresh();
}

void HeadPatternsView::setSelection(int layer, int head) {
    layer_ = layer;
    head_ = head;
    sorted_ ? drawBars() : drawCells();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeadPatternsView::setPattern(model::HeadPattern pattern) {
    if (pattern == pattern_) return;
    pattern_ = pattern;
    const QSignalBlocker block(pattern_box_);
    pattern_box_->setCurrentIndex(pattern_box_->findData(int(pattern)));
    requestRefresh();
}

void HeadPatternsView::setSorted(bool sorted) {
    if (sorted == sorted_) return;
    sorted_ = sorted;
    const QSignalBlocker block(order_box_);
    order_box_->setChecked(sorted);
    requestRefresh();
}

std::vector<model::RankedHead> HeadPatternsView::barsShown() const {
    if (!sorted_) return {};
    return {ranked_.begin(), ranked_.begin() + std::min<std::ptrdiff_t>(bars_, std::ptrdiff_t(ranked_.size()))};
}

void HeadPatternsView::setOptions(const ViewOptions& options) {
    options_ = options;
    title_->setFont(heatmap::font(12, options.font_scale, true));
    note_->setFontScale(options.font_scale);
    for (QCPAxis* axis : {rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft), scale_->axis()}) {
        axis->setLabelFont(heatmap::font(9, options.font_scale));
        axis->setTickLabelFont(heatmap::font(9, options.font_scale));
    }
    requestRefresh();
}

QString HeadPatternsView::title() const { return title_variants_.isEmpty() ? title_->text() : title_variants_.front(); }

bool HeadPatternsView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {  // before the replot the plot's resize starts
        plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
        fitTitle();
        sorted_ ? drawBars() : drawCells();
    }
    return AttentionView::eventFilter(watched, event);
}

void HeadPatternsView::fitTitle() {
    const double room = plot_->viewport().width() - 8;
    const QString title = fit::longestThatFits(title_variants_, title_->font(), room);
    title_->setText(title.isEmpty() ? fit::wrapLines(title_variants_.value(title_variants_.size() - 1), title_->font(), room) : title);
    fit::layOut(plot_);
}

void HeadPatternsView::refresh() {
    // A model's trace; else, without a model, the single layer's own (self-attention only),
    // computed off the GUI thread: until it arrives the view keeps what it drew.
    const model::Trace* shown = trace_.get();
    if (!shown && !model_open_ && analysis_ && !analysis_->input.cross) {
        const ResultStore::Result<model::Trace> layer = results().layerPatterns(analysis_);
        if (!layer) return;  // on its way: ready() refreshes
        layer_patterns_ = *layer;
        shown = layer_patterns_.get();  // null: it could not be computed
    }
    // The built-in layer's random weights: said on the layer axis, as no pattern of them is learned.
    untrained_ = !trace_ && analysis_ && analysis_->model_name.empty() && analysis_->config.init != InitKind::Identity;
    const int layers = shown ? static_cast<int>(shown->layers.size()) : 0;
    const int heads = layers ? static_cast<int>(shown->layers[0].attention.heads.size()) : 0;
    const double n = shown ? shown->n() : 0;
    const QString pattern = QString::fromStdString(model::headPatternName(pattern_));
    if (layers == 0) {
        shares_.resize(0, 0);
        title_variants_ = {tr("Open a model (File > Open model) to see what each head looks at")};
    } else {
        shares_ = model::headPatternShares(*shown, pattern_);  // (layers, heads): taken on a worker thread
        const int queries = model::patternQueries(*shown, pattern_);
        int best_l = -1, best_h = -1;
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                if (!std::isnan(shares_(l, h)) && (best_l < 0 || shares_(l, h) > shares_(best_l, best_h))) best_l = l, best_h = h;
        if (queries == 0) {
            title_variants_ = {tr("No query has a key of this kind (%1) in this text").arg(pattern), tr("No %1 here").arg(pattern)};
        } else {
            const QString best = QString::number(shares_(best_l, best_h), 'f', 2);
            title_variants_ = {tr("Share of each head's attention on %1 (%2 of %3 queries have one); strongest: L%4 H%5, %6")
                                   .arg(pattern).arg(queries).arg(int(n)).arg(best_l).arg(best_h).arg(best),
                               tr("Attention on %1 (%2 of %3 queries); strongest L%4 H%5, %6")
                                   .arg(pattern).arg(queries).arg(int(n)).arg(best_l).arg(best_h).arg(best),
                               tr("On %1 · strongest L%2 H%3, %4").arg(pattern).arg(best_l).arg(best_h).arg(best),
                               tr("On %1").arg(pattern)};
            if (untrained_) title_variants_.front() += tr(" · untrained weights: nothing here is learned");
        }
    }
    ranked_ = model::headsByShare(shares_);
    fitTitle();
    map_->data()->setSize(std::max(1, heads), std::max(1, layers));
    // The cells' centres; a single row or column (one layer) spans its own cell, as QCustomPlot
    // draws a dimension of one cell no wider than its range.
    const auto centres = [](int cells) { return cells > 1 ? QCPRange(0, cells - 1) : QCPRange(-0.5, 0.5); };
    map_->data()->setRange(centres(heads), centres(layers));
    for (int l = 0; l < std::max(1, layers); ++l)
        for (int h = 0; h < std::max(1, heads); ++h)
            map_->data()->setCell(h, l, shares_.size() ? double(shares_(l, h)) : std::nan(""));
    sorted_ ? drawBars() : drawCells();
    showPlot(layers > 0);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeadPatternsView::showPlot(bool shown) {
    if (plot_->isVisibleTo(this) == shown && note_->isVisibleTo(this) != shown) return;
    for (QWidget* w : {static_cast<QWidget*>(plot_), static_cast<QWidget*>(pattern_label_),
                       static_cast<QWidget*>(pattern_box_), static_cast<QWidget*>(order_box_)})
        w->setVisible(shown);
    note_->setVisible(!shown);
    layout()->activate();  // the plot's size now, so that what it draws next fits it (its Resize redraws)
}

void HeadPatternsView::setAxes() {
    QCPAxis* x = rect_->axis(QCPAxis::atBottom);
    QCPAxis* y = rect_->axis(QCPAxis::atLeft);
    map_->setVisible(!sorted_);
    if (!sorted_) {
        heatmap::setCellRanges(rect_, std::max(1, int(shares_.rows())), std::max(1, int(shares_.cols())));
        for (QCPAxis* axis : {x, y}) {
            auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
            ticker->setTickStep(1);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
            axis->setTicker(ticker);
        }
        x->setLabel(tr("head"));
        y->setLabel(untrained_ ? tr("layer (untrained)") : tr("layer"));
        return;
    }
    // Bars: the share across (0 to 1), one row per head shown, the strongest at the top.
    x->setRange(0, 1);
    y->setRange(-0.5, std::max(1, bars_) - 0.5);
    x->setTicker(QSharedPointer<QCPAxisTicker>::create());
    auto names = QSharedPointer<QCPAxisTickerText>::create();
    for (int r = 0; r < bars_; ++r)
        names->addTick(r, QStringLiteral("L%1 H%2").arg(ranked_[std::size_t(r)].layer).arg(ranked_[std::size_t(r)].head));
    y->setTicker(names);
    x->setLabel(tr("share of attention"));
    y->setLabel(bars_ < int(ranked_.size()) ? tr("the %1 strongest of %2 heads").arg(bars_).arg(ranked_.size())
                                                 : tr("heads, strongest first"));
}

void HeadPatternsView::drawBars() {
    // As many bars as rows of a label's height fit, from the strongest down; the shown head framed.
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != frame_) plot_->removeItem(i);
    const QFont font = heatmap::font(9, options_.font_scale);
    const QFontMetrics metrics(font);
    const int room = std::max(1, rect_->height() / (metrics.height() + 4));
    bars_ = std::min(int(ranked_.size()), room);
    setAxes();
    frame_->setVisible(false);
    QCPColorGradient gradient = viridisGradient();
    QCPAxis* x = rect_->axis(QCPAxis::atBottom);
    QCPAxis* y = rect_->axis(QCPAxis::atLeft);
    for (int r = 0; r < bars_; ++r) {
        const model::RankedHead& ranked = ranked_[std::size_t(r)];
        auto* bar = new QCPItemRect(plot_);
        bar->setClipAxisRect(rect_);
        for (QCPItemPosition* p : {bar->topLeft, bar->bottomRight}) p->setAxes(x, y);
        bar->topLeft->setCoords(0, r - 0.38);
        bar->bottomRight->setCoords(ranked.share, r + 0.38);
        bar->setPen(Qt::NoPen);
        bar->setBrush(QColor::fromRgb(gradient.color(ranked.share, QCPRange(0, 1))));
        auto* text = new QCPItemText(plot_);
        text->setClipAxisRect(rect_);
        text->position->setAxes(x, y);
        text->position->setCoords(ranked.share, r);
        text->setPositionAlignment(ranked.share > 0.85f ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter);
        text->setPadding(QMargins(4, 0, 4, 0));
        text->setFont(font);
        text->setText(QString::number(ranked.share, 'f', 2));
        text->setColor(ranked.share > 0.85f ? Qt::black : QColor(40, 40, 40));  // inside a yellow bar, or after it
        if (ranked.layer == layer_ && ranked.head == head_) {
            frame_->setVisible(true);
            frame_->topLeft->setCoords(-0.004, r - 0.5);
            frame_->bottomRight->setCoords(1.0, r + 0.5);
        }
    }
}

void HeadPatternsView::drawCells() {
    // The share in each cell where the cell has room for "0.83"; the shown head framed.
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != frame_) plot_->removeItem(i);
    setAxes();
    const int layers = int(shares_.rows()), heads = int(shares_.cols());
    frame_->setVisible(layers > 0 && layer_ >= 0 && layer_ < layers && head_ >= 0 && head_ < heads);
    frame_->topLeft->setCoords(head_ - 0.5, layer_ - 0.5);
    frame_->bottomRight->setCoords(head_ + 0.5, layer_ + 0.5);
    if (layers == 0) return;
    const QFont font = heatmap::font(8, options_.font_scale);
    const QFontMetrics metrics(font);
    const double cell_w = double(rect_->width()) / heads, cell_h = double(rect_->height()) / layers;
    if (cell_w < metrics.horizontalAdvance(QStringLiteral("0.00")) + 4 || cell_h < metrics.height() + 2) return;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            auto* text = new QCPItemText(plot_);
            text->setClipAxisRect(rect_);
            text->position->setAxes(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
            text->position->setCoords(h, l);
            text->setFont(font);
            const float share = shares_(l, h);
            text->setText(std::isnan(share) ? QStringLiteral("–") : QString::number(share, 'f', 2));
            text->setColor(std::isnan(share) || share > 0.6f ? Qt::black : Qt::white);  // viridis: dark below, yellow above
        }
}

bool HeadPatternsView::cellAt(const QPoint& pos, int* layer, int* head) const {
    if (shares_.size() == 0 || !rect_->rect().contains(pos)) return false;
    if (sorted_) {  // the bar's row, wherever along it
        const int r = int(std::lround(rect_->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
        if (r < 0 || r >= bars_) return false;
        *layer = ranked_[std::size_t(r)].layer;
        *head = ranked_[std::size_t(r)].head;
        return true;
    }
    const int h = int(std::lround(rect_->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
    const int l = int(std::lround(rect_->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
    if (l < 0 || l >= shares_.rows() || h < 0 || h >= shares_.cols()) return false;
    *layer = l;
    *head = h;
    return true;
}

}  // namespace headscope::ui
