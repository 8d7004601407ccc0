#include "ModelOverviewView.h"

#include <QGridLayout>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cstdint>

#include "CellColorMap.h"
#include "ColorMaps.h"
#include "Downsample.h"
#include "Heatmap.h"
#include "TextFit.h"
#include "TypesetTitle.h"

namespace headscope::ui {

ModelOverviewView::ModelOverviewView(QWidget* parent)
    : AttentionView({}, parent),
      plot_(new QCustomPlot(this)),
      layer_bar_(new QScrollBar(Qt::Vertical, this)),
      head_bar_(new QScrollBar(Qt::Horizontal, this)) {
    setObjectName(QStringLiteral("model_overview"));
    plot_->setObjectName(QStringLiteral("model_overview_plot"));
    plot_->setInteractions(QCP::Interactions());
    setMinimumSize(240, 160);  // 1280 x 720 at 2x (640 x 360) has room for it
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);  // the plot's coordinates are the view's (panelAt)
    layout->setSpacing(0);
    layout->addWidget(plot_, 0, 0);
    note_ = new NoModelNote(tr("Open a model (File > Open model) to see every layer's heads"), this);
    layout->addWidget(note_, 0, 0);
    plot_->hide();  // until a model is open
    layout->addWidget(layer_bar_, 0, 1);
    layout->addWidget(head_bar_, 1, 0);
    layer_bar_->setObjectName(QStringLiteral("model_overview_layers"));
    head_bar_->setObjectName(QStringLiteral("model_overview_heads"));
    layer_bar_->setToolTip(tr("Layers in view (mouse wheel)"));
    head_bar_->setToolTip(tr("Heads in view (Shift + mouse wheel)"));
    layer_bar_->hide();
    head_bar_->hide();
    const auto scrolled = [this] {
        if (layer_bar_->value() == first_layer_ && head_bar_->value() == first_head_) return;
        first_layer_ = layer_bar_->value();
        first_head_ = head_bar_->value();
        fill();
        fitLabels();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    };
    connect(layer_bar_, &QScrollBar::valueChanged, this, scrolled);
    connect(head_bar_, &QScrollBar::valueChanged, this, scrolled);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QString());
    plot_->plotLayout()->addElement(0, 0, title_);
    fitLabels();  // and again at each resize
    plot_->installEventFilter(this);
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        int layer = 0, head = 0;
        if (event->button() == Qt::LeftButton && panelAt(event->position().toPoint(), &layer, &head))
            emit panelClicked(layer, head);
    });
}

QSize ModelOverviewView::minimumSizeHint() const {
    return static_cast<const QWidget*>(plot_)->minimumSizeHint();  // QCustomPlot's own is protected
}

QCPColorMap* ModelOverviewView::colorMap(int layer, int head) const {
    const int row = layer - first_layer_, column = head - first_head_;
    if (row < 0 || row >= shown_layers_ || column < 0 || column >= shown_heads_) return nullptr;
    return maps_[std::size_t(row * shown_heads_ + column)];
}

void ModelOverviewView::setTrace(std::shared_ptr<const model::Trace> trace) {
    trace_ = std::move(trace);
    requestRefresh();
}

void ModelOverviewView::refresh() {
    const int layers = trace_ ? static_cast<int>(trace_->layers.size()) : 0;
    const int heads = layers > 0 ? static_cast<int>(trace_->layers[0].attention.heads.size()) : 0;
    if (layers > 0 && !plot_->isVisibleTo(this)) {  // a model: the plot back at its size before the panels
        note_->hide();
        plot_->show();
        layout()->activate();
    }
    if (layers != layers_ || heads != heads_) {
        layers_ = layers;
        heads_ = heads;
        first_layer_ = first_head_ = 0;
        shown_layers_ = shown_heads_ = -1;  // rebuilt below
        fitPanels();
    }
    if (layers == 0) title_variants_.clear();  // the invitation to open one again
    fill();
    fitLabels();
    note_->setVisible(layers == 0);  // in place of the plot before a model
    plot_->setVisible(layers > 0);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ModelOverviewView::setSelection(int layer, int head) {
    layer_ = layer;
    head_ = head;
    scrollTo(layer, head);
    frameSelection();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ModelOverviewView::setAblation(const model::Ablation& ablation) {
    if (ablation == ablation_) return;
    ablation_ = ablation;
    frameSelection();
    fitLabels();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ModelOverviewView::setOptions(const ViewOptions& options) {
    const bool rescaled = options.shared_scale != options_.shared_scale;
    options_ = options;  // no refresh: the fonts and labels change here (the scale: the colours too)
    title_->setFont(heatmap::font(12, options.font_scale, true));
    note_->setFontScale(options.font_scale);
    if (scale_) {
        scale_->axis()->setLabelFont(heatmap::font(9, options.font_scale));
        scale_->axis()->setTickLabelFont(heatmap::font(9, options.font_scale));
    }
    if (rescaled) fill();
    for (QCPAxisRect* rect : rects_) rect->axis(QCPAxis::atTop)->setLabelFont(heatmap::font(9, options.font_scale));
    fitPanels();
    fitLabels();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ModelOverviewView::fitPanels() {
    if (layers_ == 0) {
        if (!rects_.empty() || shown_layers_ != 0) rebuild(0, 0);
        layer_bar_->hide();
        head_bar_->hide();
        return;
    }
    // The smallest panel that still names its layer and head ("15.31") over three lines of room.
    const QFontMetricsF name(heatmap::font(9, options_.font_scale));
    const double panel_w = name.horizontalAdvance(QStringLiteral("%1.%2").arg(layers_ - 1).arg(heads_ - 1)) + 10;
    const double panel_h = 3 * name.height() + 14;  // the rule of fitLabels, with the grid's spacing and margins
    const double scale_w = 10 + name.horizontalAdvance(QStringLiteral("0.88")) + 2 * name.height() + 20;  // the colour bar
    const double title_h = 2 * QFontMetricsF(title_->font()).height() + 8;
    const double bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    auto fit = [](double room, double each, int all) { return std::clamp(int(room / each), 1, all); };
    int heads = fit(width() - scale_w, panel_w, heads_);
    int layers = fit(height() - title_h, panel_h, layers_);
    if (heads < heads_) layers = fit(height() - title_h - bar, panel_h, layers_);  // the head bar takes a row
    if (layers < layers_) heads = fit(width() - scale_w - bar, panel_w, heads_);
    first_layer_ = std::clamp(first_layer_, 0, layers_ - layers);
    first_head_ = std::clamp(first_head_, 0, heads_ - heads);
    const QSignalBlocker block_layers(layer_bar_), block_heads(head_bar_);
    layer_bar_->setRange(0, layers_ - layers);
    layer_bar_->setPageStep(layers);
    layer_bar_->setValue(first_layer_);
    layer_bar_->setVisible(layers < layers_);
    head_bar_->setRange(0, heads_ - heads);
    head_bar_->setPageStep(heads);
    head_bar_->setValue(first_head_);
    head_bar_->setVisible(heads < heads_);
    if (layers == shown_layers_ && heads == shown_heads_) return;
    rebuild(layers, heads);
    fill();
}

void ModelOverviewView::scrollTo(int layer, int head) {
    if (layer < first_layer_) layer_bar_->setValue(layer);
    else if (layer >= first_layer_ + shown_layers_) layer_bar_->setValue(layer - shown_layers_ + 1);
    if (head < first_head_) head_bar_->setValue(head);
    else if (head >= first_head_ + shown_heads_) head_bar_->setValue(head - shown_heads_ + 1);
}

void ModelOverviewView::rebuild(int layers, int heads) {
    plot_->clearPlottables();
    // The grid of panels is row 1 of the layout; deleting it deletes the panels.
    if (plot_->plotLayout()->elementCount() > 1 && plot_->plotLayout()->elementAt(1)) plot_->plotLayout()->removeAt(1);
    plot_->plotLayout()->simplify();
    rects_.clear();
    maps_.clear();
    scale_ = nullptr;  // deleted with the row it stood in
    shown_layers_ = layers;
    shown_heads_ = heads;
    if (layers == 0) return;
    // Row 1: the panels, and beside them the colour bar they share.
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    auto* grid = new QCPLayoutGrid;
    body->addElement(0, 0, grid);
    scale_ = new QCPColorScale(plot_);
    body->addElement(0, 1, scale_);
    body->setColumnStretchFactor(1, 0.01);
    scale_->setType(QCPAxis::atRight);
    scale_->setGradient(viridisGradient());
    scale_->setBarWidth(10);
    scale_->axis()->setLabelFont(heatmap::font(9, options_.font_scale));
    scale_->axis()->setTickLabelFont(heatmap::font(9, options_.font_scale));
    grid->setRowSpacing(2);
    grid->setColumnSpacing(2);
    for (int l = 0; l < layers; ++l) {
        for (int h = 0; h < heads; ++h) {
            auto* rect = new QCPAxisRect(plot_, true);
            heatmap::styleAxes(rect);
            for (QCPAxis* axis : rect->axes()) axis->setTickLabels(false), axis->setTicks(false);
            rect->axis(QCPAxis::atTop)->setLabelFont(heatmap::font(9, options_.font_scale));
            rect->setAutoMargins(QCP::msTop);
            rect->setMinimumSize(2, 2);  // 16 layers x 32 heads in a small tab: the panels shrink, the title keeps its lines
            rect->setMargins(QMargins(2, 0, 2, 2));
            grid->addElement(l, h, rect);
            auto* map = new CellColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            map->setGradient(viridisGradient());
            rects_.push_back(rect);
            maps_.push_back(map);
        }
    }
}

void ModelOverviewView::fill() {
    if (!trace_ || layers_ == 0) return;
    const int n = trace_->n();
    windows_.assign(std::size_t(layers_), 0);
    int sliding = 0;
    for (int l = 0; l < layers_; ++l) {
        // (n, n), or a long input's last row alone (1, n): the keys the last query sees.
        const MaskMatrix& allowed = trace_->layers[std::size_t(l)].attention.allowed;
        const int seen = n > 0 && allowed.rows() > 0 && allowed.cols() == n ? static_cast<int>(allowed.bottomRows(1).count()) : n;
        if (trace_->options.attention.mask == MaskKind::Causal && seen < n) {
            windows_[std::size_t(l)] = seen;
            ++sliding;
        }
    }
    // One scale for every panel (View > one colour bar for all heads), its largest weight at the
    // top; else each panel from 0 to its own largest, which the colour bar then says.
    // Each head's thumbnail as the forward took it (the largest weight of each block, so the same
    // largest weight), or its map where that is small enough to be its own: nothing of n x n here.
    const auto map = [this](int l, int h) -> const Eigen::MatrixXf& {
        const model::LayerTrace& layer = trace_->layers[std::size_t(l)];
        return layer.thumbnails.empty() ? layer.attention.heads[std::size_t(h)].weights : layer.thumbnails[std::size_t(h)];
    };
    float top = 1e-6f;
    for (int l = 0; l < layers_; ++l)
        for (int h = 0; h < heads_; ++h) top = std::max(top, map(l, h).size() ? map(l, h).maxCoeff() : 0.f);
    const bool shared = options_.shared_scale;
    scale_->setDataRange(QCPRange(0, shared ? double(top) : 1.0));
    scale_->axis()->setLabel(shared ? tr("attention weight") : tr("weight ÷ its panel's largest"));
    // Each panel `cells` a side: cell (r, c) the largest weight of its block of the map.
    const int cells = std::min(n, model::kThumbnailCells);
    for (int row = 0; row < shown_layers_; ++row) {
        for (int column = 0; column < shown_heads_; ++column) {
            const int l = first_layer_ + row, h = first_head_ + column;
            const Eigen::MatrixXf& shown = map(l, h);
            // A trace made by hand may hold a large map without its thumbnail.
            const Eigen::MatrixXf thumbnail = shown.rows() == cells && shown.cols() == cells
                                                  ? shown
                                                  : downsample(shown, cells, cells, Pool::Max);  // (cells, cells)
            QCPColorMap* panel = maps_[std::size_t(row * shown_heads_ + column)];
            QCPColorMapData* data = panel->data();
            data->setSize(cells, cells);
            data->setRange(QCPRange(0, std::max(0, cells - 1)), QCPRange(0, std::max(0, cells - 1)));
            for (int r = 0; r < cells; ++r)
                for (int c = 0; c < cells; ++c) data->setCell(c, r, thumbnail(r, c));
            panel->setDataRange(QCPRange(0, shared ? double(top) : std::max(1e-6, double(thumbnail.maxCoeff()))));
            heatmap::setCellRanges(rects_[std::size_t(row * shown_heads_ + column)], cells, cells);
        }
    }
    // What the panels and their axes are (issue 36 item 10: no axis was named).
    title_variants_ = {tr("Every layer's heads: attention weights on the %1 tokens, queries down, keys across · click one to show it").arg(n),
                       tr("Rows: layers, columns: heads · in each, queries down, keys across · %1 tokens").arg(n),
                       tr("Layers down, heads across; in each, queries × keys"), tr("Layers × heads; each: queries × keys")};
    if (sliding > 0)  // which layers slide, said once; each of their panels says its window
        title_variants_ = {title_variants_[0] + tr(" · %1 of %2 layers attend in a sliding window (\u201cwindow\u201d)").arg(sliding).arg(layers_),
                           title_variants_[1] + tr(" · %1 sliding layers").arg(sliding), title_variants_[2], title_variants_[3]};
    if (shown_layers_ < layers_ || shown_heads_ < heads_) {  // which panels are in view, and that the rest scroll
        const int last_layer = first_layer_ + shown_layers_ - 1, last_head = first_head_ + shown_heads_ - 1;
        const QString range = tr("layers %1–%2 of %3, heads %4–%5 of %6")
                                  .arg(first_layer_).arg(last_layer).arg(layers_).arg(first_head_).arg(last_head).arg(heads_);
        const QString brief = tr("L %1–%2 of %3, H %4–%5 of %6")
                                  .arg(first_layer_).arg(last_layer).arg(layers_).arg(first_head_).arg(last_head).arg(heads_);
        title_variants_ = {title_variants_[0] + tr(" · in view: %1 (scroll for the rest)").arg(range),
                           title_variants_[1] + tr(" · in view: %1").arg(range),
                           tr("Layers × heads; each: queries × keys · in view: %1").arg(range),
                           tr("Layers × heads; each: queries × keys · %1").arg(brief),
                           tr("Each: queries × keys · %1").arg(brief)};
    }
    frameSelection();
}

void ModelOverviewView::fitLabels() {
    const double room = plot_->viewport().width() - 8;
    if (title_variants_.isEmpty()) {  // no model: the sentence whole, wrapped to the width
        title_->setText(fit::wrapLines(tr("Open a model (File > Open model) to see every layer's heads"),
                                       title_->font(), room));
        return;
    }
    const QString title = fit::longestThatFits(title_variants_, title_->font(), room);
    title_->setText(title.isEmpty() ? fit::wrapLines(title_variants_.back(), title_->font(), room) : title);
    fit::layOut(plot_);
    // "L3 H7" when the panels are wide enough, "3.7" when not, nothing when even that crowds:
    // too narrow, or a row so low that its name would take most of it.
    const double name_px = QFontMetricsF(heatmap::font(9, options_.font_scale)).height();
    const double row_px = shown_layers_ > 0 ? double(rects_.back()->layout()->outerRect().height()) / shown_layers_ : 0;
    const bool named = row_px >= 3 * name_px;
    // "L3 H7" on every panel when the widest in view has room for it, else "3.7" on every one.
    const bool long_names = !rects_.empty() &&
        QFontMetricsF(heatmap::font(9, options_.font_scale))
                .horizontalAdvance(QStringLiteral("L%1 H%2").arg(first_layer_ + shown_layers_ - 1).arg(first_head_ + shown_heads_ - 1)) <=
            rects_.front()->outerRect().width();
    for (int row = 0; row < shown_layers_; ++row)
        for (int column = 0; column < shown_heads_; ++column) {
            const int l = first_layer_ + row, h = first_head_ + column;
            QCPAxis* top = rects_[std::size_t(row * shown_heads_ + column)]->axis(QCPAxis::atTop);
            QStringList names{QStringLiteral("L%1 H%2").arg(l).arg(h), QStringLiteral("%1.%2").arg(l).arg(h)};
            if (!long_names) names.removeFirst();  // one form for every panel in view
            if (const int window = std::size_t(l) < windows_.size() ? windows_[std::size_t(l)] : 0; window > 0)
                names = QStringList{tr("L%1 H%2 · window %3").arg(l).arg(h).arg(window), tr("L%1 H%2 w%3").arg(l).arg(h).arg(window),
                                    names[0], names[1]};
            if (ablation_.contains(l, h)) names = QStringList{names[0] + tr(" off"), names[1] + tr(" off"), tr("off")};
            top->setLabel(named ? fit::longestThatFits(names, top->labelFont(), top->axisRect()->outerRect().width()) : QString());
        }
}

bool ModelOverviewView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {  // before the replot the plot's resize starts
        plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
        fitLabels();
    }
    if (watched == plot_ && event->type() == QEvent::Wheel) {  // a wheel step: a layer (with Shift: a head)
        const auto* wheel = static_cast<QWheelEvent*>(event);
        const QPoint delta = wheel->angleDelta();
        const bool heads = (wheel->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y());
        QScrollBar* bar = heads ? head_bar_ : layer_bar_;
        const int steps = (heads && delta.x() != 0 ? delta.x() : delta.y()) / 120;
        if (bar->isVisible() && steps != 0) bar->setValue(bar->value() - steps);
        return bar->isVisible();
    }
    return AttentionView::eventFilter(watched, event);
}

void ModelOverviewView::resizeEvent(QResizeEvent* event) {
    AttentionView::resizeEvent(event);
    fitPanels();
    fitLabels();
}

void ModelOverviewView::frameSelection() {
    for (int row = 0; row < shown_layers_; ++row) {
        for (int column = 0; column < shown_heads_; ++column) {
            const int l = first_layer_ + row, h = first_head_ + column;
            const bool selected = l == layer_ && h == head_;
            const bool off = ablation_.contains(l, h);
            const QPen pen(selected ? QColor(230, 160, 0) : off ? QColor(200, 30, 30) : QColor(90, 90, 90),
                           selected ? 3 : off ? 2 : 1);
            for (QCPAxis* axis : rects_[std::size_t(row * shown_heads_ + column)]->axes()) axis->setBasePen(pen);
        }
    }
}

bool ModelOverviewView::panelAt(const QPoint& pos, int* layer, int* head) const {
    for (int i = 0; i < static_cast<int>(rects_.size()); ++i) {
        if (rects_[std::size_t(i)]->outerRect().contains(pos)) {
            *layer = first_layer_ + i / shown_heads_;
            *head = first_head_ + i % shown_heads_;
            return true;
        }
    }
    return false;
}


}  // namespace headscope::ui
