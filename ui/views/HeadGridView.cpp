#include "HeadGridView.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QTextStream>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "CellColorMap.h"
#include "ColourBarTicker.h"
#include "GridShape.h"
#include "Heatmap.h"
#include "TypesetAxis.h"
#include "TypesetTitle.h"

namespace headscope::ui {
namespace {

constexpr double kOwnBarPx = 7;  // a per-head colour bar's width at font scale 1

}  // namespace

HeadGridView::HeadGridView(QWidget* parent) : QCustomPlot(parent) {
    setMouseTracking(true);
    setInteractions(QCP::Interactions());
    setAutoAddPlottableToLegend(false);
    setMinimumSize(kMinWidth, 160);  // 1280 x 720 at 2x (640 x 360) has room for it
    // The colour maps live on "main"; buffering it alone lets a numbers-only update redraw
    // just that layer (a few ms for 12 heads) instead of every axis and label.
    layer(QStringLiteral("main"))->setMode(QCPLayer::lmBuffered);
    // No selection rectangle here: fold the overlay into the axes' buffer (one buffer fewer
    // to compose on every paint).
    layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    clearLayout();
    title_ = new TypesetTitle(this, QStringLiteral("No analysis yet"));
    plotLayout()->addElement(0, 0, title_);
    applyFonts();
    // Before anything is drawn: the maps hold as many cells as the panels just laid out have pixels.
    connect(this, &QCustomPlot::afterLayout, this, &HeadGridView::refillIfPanelsChanged);
    connect(this, &QCustomPlot::afterLayout, this, &HeadGridView::placeCellNumbers);
    connect(this, &QCustomPlot::afterLayout, this, [this]() {
        if (label_layout_) label_layout_->cells = cellSizes();
    });
}

void HeadGridView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    // Drawn at once (results arrive at most once per computation): a full replot when the
    // layout or a colour bar changed, else only the colour maps' layer.
    if (analysis && analysis == analysis_) return;  // drawn already, from forwardReady
    analysis_ = std::move(analysis);
    if (refresh(viewport().size(), true))
        replot(rpImmediateRefresh);
    else
        layer(QStringLiteral("main"))->replot();
}

void HeadGridView::setOptions(const ViewOptions& options) {
    if (options == options_) return;
    const bool fonts = options.font_scale != options_.font_scale;
    options_ = options;
    refresh(viewport().size());
    if (fonts) applyFonts();
    replot(rpQueuedReplot);
}

void HeadGridView::setThumbnails(bool on) {
    if (on == thumbnails_) return;
    thumbnails_ = on;
    setMinimumWidth(on ? kThumbnailsMinWidth : kMinWidth);
    label_layout_.reset();
    structure_.clear();
    if (!analysis_) return;
    refresh(viewport().size());
    replot(rpQueuedReplot);
}

void HeadGridView::setColumnCount(int columns) {
    fixed_columns_ = std::max(0, columns);
    refresh(viewport().size());
    replot(rpQueuedReplot);
}

QCPColorMap* HeadGridView::colorMap(int head) const {
    if (head < 0 || head >= headCount()) return nullptr;
    return cells_[static_cast<std::size_t>(head)].map;
}

QCPColorScale* HeadGridView::colorScale(int head) const {
    if (head < 0 || head >= headCount()) return nullptr;
    const Cell& cell = cells_[static_cast<std::size_t>(head)];
    return cell.scale ? cell.scale : shared_scale_;
}

QCPAxisRect* HeadGridView::headRect(int head) const {
    if (head < 0 || head >= headCount()) return nullptr;
    return cells_[static_cast<std::size_t>(head)].rect;
}

QString HeadGridView::title() const { return title_ ? title_->text() : QString(); }

int HeadGridView::headAt(const QPoint& pos) const {
    for (int h = 0; h < headCount(); ++h) {
        const Cell& cell = cells_[static_cast<std::size_t>(h)];
        if (cell.rect->outerRect().contains(pos)) return h;
    }
    return -1;
}

QString HeadGridView::describe(const QPoint& pos) const {
    if (!analysis_) return {};
    const int h = headAt(pos);
    if (h < 0) return {};
    int row = 0, col = 0;
    if (!heatmap::cellAt(headRect(h), pos, analysis_->nQuery(), analysis_->nKeyValue(), &row, &col))
        return {};
    return heatmap::cellText(*analysis_, h, row, col);
}

void HeadGridView::replotNow() {
    refresh(viewport().size());
    replot(rpImmediateRefresh);
}

// ---------------------------------------------------------------------------------------------

bool HeadGridView::refresh(const QSize& size, bool reuse_labels) {
    if (!analysis_ || analysis_->results.heads.empty()) {
        if (!cells_.empty() || !title_) {
            clearLayout();
            title_ = new TypesetTitle(this, QStringLiteral("No analysis yet"));
            plotLayout()->addElement(0, 0, title_);
            applyFonts();
        }
        structure_.clear();
        return true;
    }
    const Analysis& a = *analysis_;
    const int heads = static_cast<int>(a.results.heads.size());
    // A bar per head only where its numbers can be read; else the shared bar, and a note says so.
    const bool shared = options_.shared_scale || thumbnails_ || !perHeadBarsFit(heads, size);
    const int columns = fixed_columns_ > 0 ? std::min(fixed_columns_, heads)
                        : thumbnails_      ? thumbnailColumns(heads, thumbnailRoom(size), thumbnailTitleHeight(), kThumbnailGap)
                                           : fittingColumns(heads, size, gridColumns(heads, a.nQuery(), a.nKeyValue(), size,
                                                                                     options_.font_scale, shared ? kBarSpace : 0));
    const bool logits = options_.show_logits;
    // A long input's panels draw as many cells as they have device pixels (at most kMaxGridCells):
    // 32 heads of 2,044 tokens, 256 cells a side each, took the window's thread 15-73 ms to fill. The
    // panels as last laid out for this size and these columns, else (a new layout, or one no replot
    // has laid out yet: its panels have no size) the widget's share of each, which is more. Either
    // way the next layout counts the cells again (refillIfPanelsChanged): this text's labels may
    // give the panels another size.
    const bool rebuild = heads != headCount() || columns != columns_ || shared != layout_shared_ || !subtitle_;
    const int rows = (heads + columns - 1) / columns;
    const double share = std::max(double(size.width()) / columns, double(size.height()) / rows);
    const double laid_out = rebuild || size != laid_out_size_ || !panels_laid_out_ ? 0 : panelPixels();
    drawn_cells_ = heatmap::gridCells(int(std::ceil((laid_out > 0 ? laid_out : share) * devicePixelRatioF())));
    laid_out_size_ = size;
    if (rebuild) {
        const bool count_changed = heads != headCount();
        rebuildLayout(heads, columns, shared);
        if (count_changed) emit headCountChanged(heads);
        layout_logits_ = !logits;  // force the gradient below
    }
    if (layout_logits_ != logits) {
        const QCPColorGradient gradient = heatmap::gradient(logits);
        if (shared_scale_) shared_scale_->setGradient(gradient);
        for (Cell& cell : cells_) {
            if (cell.scale) cell.scale->setGradient(gradient);
            cell.map->setGradient(gradient);
        }
        layout_logits_ = logits;
    }

    // Numbers: copy each head's matrix into its map, then the colour ranges.
    fillMaps();
    for (int h = 0; h < heads; ++h) {
        Cell& cell = cells_[static_cast<std::size_t>(h)];
        heatmap::setCellRanges(cell.rect, a.nQuery(), a.nKeyValue());
        if (cell.scale) cell.scale->setDataRange(heatmap::dataRange(a, h, logits, false));
    }
    if (shared_scale_) shared_scale_->setDataRange(heatmap::dataRange(a, -1, logits, true));

    markFullyMaskedRows();
    updateCellNumbers();
    markSelection();
    // A short window at large fonts (a projector at 1024 x 768, 2x): the explanations shrink
    // to their essentials so the heatmaps keep enough height for their query words.
    const int line = QFontMetrics(heatmap::font(kTickPt, options_.font_scale)).height();
    compact_texts_ = thumbnails_ || (size.height() >= 150 && size.height() < 22 * line);
    updateTexts();
    wrapTitles(size);
    const QString inputs = labelInputs(size);
    if (!(reuse_labels && size == viewport().size() && reuseLabelLayout(inputs))) {
        rows_measured_ = false;
        updateLabels(size);
        equalizeRows(size);
        // Once more on the equalised layout: the words per cell follow the heights it really gives.
        // Twice at most: the words a pass chooses (key words standing under the last row) may
        // change the heights the next pass measures.
        for (int pass = 0; pass < 2 && size == viewport().size() && headCount() > std::max(1, columns_); ++pass) {
            const int x = x_stride_, y = y_stride_;
            rows_measured_ = true;
            updateLabels(size);
            rows_measured_ = false;
            equalizeRows(size);
            if (pass > 0 || (x == x_stride_ && y == y_stride_)) break;
        }
        const std::vector<QSize> cells = label_layout_ ? label_layout_->cells : std::vector<QSize>{};
        label_layout_ = LabelLayout{inputs, shared_scale_ ? shared_scale_->label() : QString(), cells};
    }

    QString now = structure();
    now += QStringLiteral("|%1x%2").arg(size.width()).arg(size.height());
    const bool changed = now != structure_;
    structure_ = std::move(now);
    return changed;
}

void HeadGridView::fillMaps() {
    for (std::size_t h = 0; h < cells_.size(); ++h)
        heatmap::fill(cells_[h].map, *analysis_, static_cast<int>(h), options_.show_logits, {}, drawn_cells_);
}

double HeadGridView::panelPixels() const {
    double panel = 0;
    for (const Cell& cell : cells_) panel = std::max({panel, double(cell.rect->width()), double(cell.rect->height())});
    return panel;
}

void HeadGridView::refillIfPanelsChanged() {
    panels_laid_out_ = true;
    if (!analysis_ || cells_.size() != analysis_->results.heads.size()) return;
    const int cells = heatmap::gridCells(int(std::ceil(panelPixels() * devicePixelRatioF())));
    if (cells == drawn_cells_) return;
    drawn_cells_ = cells;
    fillMaps();
}

QString HeadGridView::structure() const {
    QString s;
    QTextStream out(&s);
    out << headCount() << ' ' << columns_ << ' ' << options_.show_logits << options_.shared_scale << ' '
        << options_.font_scale << options_.cell_numbers << thumbnails_ << '|' << (title_ ? title_->text() : QString()) << '|'
        << (subtitle_ ? subtitle_->text() : QString()) << '|' << query_labels_.join(QChar(0x1f)) << '|'
        << key_labels_.join(QChar(0x1f)) << '|';
    if (shared_scale_) out << shared_scale_->label() << shared_scale_->dataRange().lower << ','
                           << shared_scale_->dataRange().upper;
    out << '|' << head_ << '|' << x_stride_ << ',' << y_stride_;
    for (int row : fully_masked_rows_) out << ',' << row;
    for (const Cell& cell : cells_) {
        const QCPAxis* x = cell.rect->axis(QCPAxis::atBottom);
        out << ';' << x->range().upper << ',' << cell.rect->axis(QCPAxis::atLeft)->range().upper << ','
            << x->tickLabelRotation() << ','
            << bool(qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker())) << ','
            << bool(qSharedPointerDynamicCast<QCPAxisTickerText>(cell.rect->axis(QCPAxis::atLeft)->ticker()));
        if (cell.scale) out << ',' << cell.scale->dataRange().lower << ',' << cell.scale->dataRange().upper;
    }
    return s;
}

void HeadGridView::clearLayout() {
    label_layout_.reset();
    clearItems();
    row_marks_.clear();
    number_items_.clear();
    hover_rect_ = nullptr;
    clearPlottables();
    plotLayout()->clear();
    delete margin_group_;
    margin_group_ = nullptr;
    cells_.clear();
    title_ = subtitle_ = nullptr;
    shared_scale_ = nullptr;
    heads_grid_ = nullptr;
    columns_ = 0;
}

void HeadGridView::rebuildLayout(int heads, int columns, bool shared) {
    clearLayout();
    panels_laid_out_ = false;
    columns_ = columns;
    layout_shared_ = shared;
    margin_group_ = new QCPMarginGroup(this);

    title_ = new TypesetTitle(this);
    subtitle_ = new TypesetTitle(this);
    title_->setMargins(QMargins(0, 6, 0, 0));
    subtitle_->setMargins(QMargins(0, 2, 0, 4));
    subtitle_->setTextColor(QColor(70, 70, 70));
    plotLayout()->addElement(0, 0, title_);
    plotLayout()->addElement(1, 0, subtitle_);
    auto* body = new QCPLayoutGrid;
    plotLayout()->addElement(2, 0, body);
    plotLayout()->setRowSpacing(0);
    auto* grid = new QCPLayoutGrid;
    body->addElement(0, 0, grid);
    heads_grid_ = grid;
    grid->setRowSpacing(6);
    grid->setColumnSpacing(10);

    const int rows = (heads + columns - 1) / columns;
    grid->expandTo(rows, columns);
    cells_.resize(static_cast<std::size_t>(heads));
    for (int h = 0; h < heads; ++h) {
        Cell& cell = cells_[static_cast<std::size_t>(h)];
        cell.rect = new QCPAxisRect(this, true);
        heatmap::styleAxes(cell.rect);
        // QCustomPlot's default minimum (50 x 50 and 15 px margins) would squeeze the titles
        // over the heads when many rows share a short window: the cells shrink instead.
        cell.rect->setMinimumSize(8, 8);
        cell.rect->setMinimumMargins(QMargins(2, 2, 2, 2));
        cell.rect->axis(QCPAxis::atTop)->setLabel(QStringLiteral("head %1").arg(h));
        // Rows align (top and bottom); left margins differ: only column 0 carries query words.
        // With the shared bar only the heads of the last row carry key words: rows
        // align at the top only. With a bar per head every head keeps its own words.
        cell.rect->setMarginGroup(shared ? QCP::msTop : QCP::msTop | QCP::msBottom, margin_group_);
        if (shared) {
            grid->addElement(h / columns, h % columns, cell.rect);
        } else {
            auto* pair = new QCPLayoutGrid;
            grid->addElement(h / columns, h % columns, pair);
            pair->addElement(0, 0, cell.rect);
            cell.scale = new QCPColorScale(this);
            TypesetAxis::adopt(cell.scale);  // "logit / √d_k" typeset
            cell.scale->setType(QCPAxis::atRight);
            cell.scale->setRangeDrag(false);
            cell.scale->setRangeZoom(false);
            ColourBarTicker::install(cell.scale);
            cell.scale->setMarginGroup(QCP::msTop | QCP::msBottom, margin_group_);
            pair->addElement(0, 1, cell.scale);
            pair->setColumnSpacing(4);
        }
        cell.map = new CellColorMap(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
        cell.map->setTightBoundary(false);
        cell.map->setColorScale(cell.scale);  // nullptr in shared mode; set below
    }
    if (shared) {
        shared_scale_ = new QCPColorScale(this);
        TypesetAxis::adopt(shared_scale_);
        shared_scale_->setType(QCPAxis::atRight);
        shared_scale_->setRangeDrag(false);
        shared_scale_->setRangeZoom(false);
        ColourBarTicker::install(shared_scale_);
        shared_scale_->setMarginGroup(QCP::msTop, margin_group_);
        body->addElement(0, 1, shared_scale_);
        body->setColumnSpacing(12);
        for (Cell& cell : cells_) cell.map->setColorScale(shared_scale_);
    }
    applyFonts();
}

void HeadGridView::applyFonts() {
    label_layout_.reset();  // laid out with the old fonts
    const double s = options_.font_scale;
    if (title_) title_->setFont(heatmap::font(kTitlePt, s, true));
    // The subtitle explains; the data labels are what the back row must read: it grows less.
    if (subtitle_) subtitle_->setFont(heatmap::font(kSubtitlePt, std::min(s, 1.4)));
    const QFont tick = heatmap::font(kTickPt, s);
    const QFont head = heatmap::font(kHeadTitlePt, s, true);
    for (Cell& cell : cells_) {
        for (QCPAxis* axis : cell.rect->axes()) {
            axis->setTickLabelFont(tick);
            axis->setLabelFont(axis->axisType() == QCPAxis::atTop ? head : tick);  // "every 3rd key": as the words
        }
        // The first query word stands up to half a line above its heatmap: the head title
        // keeps clear of it.
        cell.rect->axis(QCPAxis::atTop)->setLabelPadding(static_cast<int>(4 + 0.5 * QFontMetrics(tick).height()));
        // Rotated labels render a few pixels longer than QCustomPlot measures: keep room.
        cell.rect->axis(QCPAxis::atBottom)->setPadding(static_cast<int>(2 + 6 * s));
        if (cell.scale) {
            cell.scale->setBarWidth(static_cast<int>(kOwnBarPx * s));
            cell.scale->axis()->setTickLabelFont(heatmap::font(kBarPt - 1, s));
        }
    }
    if (shared_scale_) {
        shared_scale_->setBarWidth(static_cast<int>(16 * s));
        shared_scale_->axis()->setTickLabelFont(heatmap::font(kBarPt, s));
        shared_scale_->axis()->setLabelFont(heatmap::font(kBarPt, s));
    }
}

void HeadGridView::resizeEvent(QResizeEvent* event) {
    // Decide columns and labels for the new size before QCustomPlot lays out and draws.
    if (analysis_) refresh(event->size());
    QCustomPlot::resizeEvent(event);
}

}  // namespace headscope::ui
