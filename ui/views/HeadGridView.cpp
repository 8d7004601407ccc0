#include "HeadGridView.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QTextStream>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "CellColorMap.h"
#include "GridShape.h"
#include "Heatmap.h"
#include "TextFit.h"

namespace headscope::ui {
namespace {

// Point sizes at font_scale 1: readable from the back of a classroom at 1.5-2.
constexpr double kTitlePt = 14, kSubtitlePt = 10, kHeadTitlePt = 11, kTickPt = 10, kBarPt = 10;
constexpr double kOwnBarPx = 7;  // a per-head colour bar's width at font scale 1


QString maskWords(const Analysis& a) {
    QStringList parts;
    if (a.config.mask == MaskKind::Causal) parts << QStringLiteral("causal mask");
    if (!a.config.padded_keys.empty()) parts << QStringLiteral("padded keys");
    if (parts.isEmpty()) parts << QStringLiteral("mask");
    return parts.join(QStringLiteral(" + "));
}

}  // namespace

HeadGridView::HeadGridView(QWidget* parent) : QCustomPlot(parent) {
    setMouseTracking(true);
    setInteractions(QCP::Interactions());
    setAutoAddPlottableToLegend(false);
    setMinimumSize(240, 200);
    // The colour maps live on "main"; buffering it alone lets a numbers-only update redraw
    // just that layer (a few ms for 12 heads) instead of every axis and label.
    layer(QStringLiteral("main"))->setMode(QCPLayer::lmBuffered);
    // No selection rectangle here: fold the overlay into the axes' buffer (one buffer fewer
    // to compose on every paint).
    layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    clearLayout();
    title_ = new QCPTextElement(this, QStringLiteral("No analysis yet"));
    plotLayout()->addElement(0, 0, title_);
    applyFonts();
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
            title_ = new QCPTextElement(this, QStringLiteral("No analysis yet"));
            plotLayout()->addElement(0, 0, title_);
            applyFonts();
        }
        structure_.clear();
        return true;
    }
    const Analysis& a = *analysis_;
    const int heads = static_cast<int>(a.results.heads.size());
    // A bar per head only where its numbers can be read; else the shared bar, and a note says so.
    const bool shared = options_.shared_scale || !perHeadBarsFit(heads, size);
    const int columns = fixed_columns_ > 0 ? std::min(fixed_columns_, heads)
                                           : fittingColumns(heads, size, gridColumns(heads, a.nQuery(), a.nKeyValue(), size,
                                                                                     options_.font_scale, shared ? kBarSpace : 0));
    const bool logits = options_.show_logits;
    if (heads != headCount() || columns != columns_ || shared != layout_shared_ || !subtitle_) {
        rebuildLayout(heads, columns, shared);
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
    for (int h = 0; h < heads; ++h) {
        Cell& cell = cells_[static_cast<std::size_t>(h)];
        heatmap::fill(cell.map, a, h, logits);
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
    compact_texts_ = size.height() >= 150 && size.height() < 22 * line;
    updateTexts();
    const QString inputs = labelInputs(size);
    if (!(reuse_labels && size == viewport().size() && reuseLabelLayout(inputs))) {
        wrapTitles(size);
        rows_measured_ = false;
        updateLabels(size);
        equalizeRows(size);
        // Once more on the equalised layout: the words per cell follow the heights it really gives.
        if (size == viewport().size() && headCount() > std::max(1, columns_)) {
            rows_measured_ = true;
            updateLabels(size);
            rows_measured_ = false;
            equalizeRows(size);
        }
        const std::vector<QSize> cells = label_layout_ ? label_layout_->cells : std::vector<QSize>{};
        label_layout_ = LabelLayout{inputs, title_->text(), subtitle_->text(),
                                    shared_scale_ ? shared_scale_->label() : QString(), cells};
    }

    QString now = structure();
    now += QStringLiteral("|%1x%2").arg(size.width()).arg(size.height());
    const bool changed = now != structure_;
    structure_ = std::move(now);
    return changed;
}

QString HeadGridView::labelInputs(const QSize& size) const {
    const Analysis& a = *analysis_;
    const QChar sep(0x1f);
    QString s;
    QTextStream out(&s);
    out << size.width() << 'x' << size.height() << ' ' << headCount() << ' ' << columns_ << ' ' << layout_shared_
        << ' ' << compact_texts_ << ' ' << options_.font_scale << options_.token_positions << options_.show_logits
        << options_.shared_scale << options_.cell_numbers << '|' << title_->text() << sep << subtitle_->text() << sep
        << (shared_scale_ ? shared_scale_->label() : QString()) << '|'
        << heatmap::queryLabels(a, 12, options_.token_positions).join(sep) << '|'
        << heatmap::keyLabels(a, 12, options_.token_positions).join(sep);
    return s;
}

std::vector<QSize> HeadGridView::cellSizes() const {
    std::vector<QSize> sizes;
    for (const Cell& cell : cells_) sizes.push_back(cell.rect->outerRect().size()), sizes.push_back(cell.rect->rect().size());
    return sizes;
}

bool HeadGridView::reuseLabelLayout(const QString& inputs) {
    if (!label_layout_ || label_layout_->inputs != inputs || label_layout_->cells.empty()) return false;
    title_->setText(label_layout_->title);
    subtitle_->setText(label_layout_->subtitle);
    if (shared_scale_) shared_scale_->setLabel(label_layout_->bar_label);
    fit::layOut(this);  // with the new numbers' colour bars
    if (cellSizes() != label_layout_->cells) {
        updateTexts();  // from the unwrapped texts again
        return false;
    }
    ++label_layouts_reused_;
    return true;
}

QString HeadGridView::structure() const {
    QString s;
    QTextStream out(&s);
    out << headCount() << ' ' << columns_ << ' ' << options_.show_logits << options_.shared_scale << ' '
        << options_.font_scale << options_.cell_numbers << '|' << (title_ ? title_->text() : QString()) << '|'
        << (subtitle_ ? subtitle_->text() : QString()) << '|' << query_labels_.join(QChar(0x1f)) << '|'
        << key_labels_.join(QChar(0x1f)) << '|';
    if (shared_scale_) out << shared_scale_->label() << shared_scale_->dataRange().lower << ','
                           << shared_scale_->dataRange().upper;
    out << '|' << head_;
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

int HeadGridView::fittingColumns(int heads, const QSize& laid_out, int columns) const {
    // gridColumns() weighs cell sizes; here the texts that must fit: every row's head title
    // (QCustomPlot squeezes the plot's titles over the heads when the rows' minimum heights
    // exceed the widget), and every column wide enough for its head title ("▶ h63").
    if (laid_out.width() < 200 || laid_out.height() < 150) return columns;
    const double s = options_.font_scale;
    const int head_h = QFontMetrics(heatmap::font(kHeadTitlePt, s, true)).height();
    const int tick_h = QFontMetrics(heatmap::font(kTickPt, s)).height();
    const int titles_h = QFontMetrics(heatmap::font(kTitlePt, s, true)).height() +
                         3 * QFontMetrics(heatmap::font(kSubtitlePt, std::min(s, 1.4))).height() + 16;
    const double row_h = head_h + 0.5 * tick_h + 14 + tick_h;  // title, paddings, a heatmap a word high at least
    const int rows_fit = std::max(1, int((laid_out.height() - titles_h - tick_h) / row_h));
    const int at_least = (heads + rows_fit - 1) / rows_fit;
    const int title_w = QFontMetrics(heatmap::font(kHeadTitlePt, s, true)).horizontalAdvance(QStringLiteral("▶ h%1").arg(heads - 1));
    const int at_most = std::max(1, (laid_out.width() - kBarSpace - 6 * tick_h) / (title_w + 12));
    const int fitted = std::clamp(std::max(columns, at_least), 1, std::max(at_least, std::min(heads, at_most)));
    // A full last row if a few more columns give one: a short last row puts key words under
    // two rows, and both pay their height.
    for (int c = fitted; c <= std::min({heads, at_most, fitted + fitted / 3}); ++c)
        if (heads % c == 0) return c;
    return fitted;
}

int HeadGridView::ownBarWidth() const {
    // A per-head bar, its ticks and numbers ("0.25"), and the gap to its heatmap.
    const QFontMetrics fm(heatmap::font(kBarPt - 1, options_.font_scale));
    return int(kOwnBarPx * options_.font_scale) + 3 + 3 + fm.horizontalAdvance(QStringLiteral("0.00")) + 8;
}

bool HeadGridView::perHeadBarsFit(int heads, const QSize& laid_out) const {
    if (heads >= kMaxHeadBars) return false;
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(1920, 1400) : laid_out;
    const double s = options_.font_scale;
    const int columns = fixed_columns_ > 0 ? std::min(fixed_columns_, heads)
                                           : gridColumns(heads, analysis_->nQuery(), analysis_->nKeyValue(), size, s, 0);
    const int rows = (heads + columns - 1) / columns;
    const int text_h = QFontMetrics(heatmap::font(kTickPt, s)).height();
    const int bar_text_h = QFontMetrics(heatmap::font(kBarPt - 1, s)).height();
    // As updateLabels() estimates it: titles above, a head title and a line of key words a row.
    const double bar_h = double(size.height() - 3 * text_h - 16) / rows - (1.8 * text_h + 24) - text_h;
    const double heatmap_w = double(size.width()) / columns - ownBarWidth() - 10;
    // At least three numbers along each bar, and each heatmap wider than its bar.
    return bar_h >= 3 * 1.6 * bar_text_h && heatmap_w >= 2 * ownBarWidth();
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
    columns_ = columns;
    layout_shared_ = shared;
    margin_group_ = new QCPMarginGroup(this);

    title_ = new QCPTextElement(this);
    subtitle_ = new QCPTextElement(this);
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
            cell.scale->setType(QCPAxis::atRight);
            cell.scale->setRangeDrag(false);
            cell.scale->setRangeZoom(false);
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
        shared_scale_->setType(QCPAxis::atRight);
        shared_scale_->setRangeDrag(false);
        shared_scale_->setRangeZoom(false);
        shared_scale_->setMarginGroup(QCP::msTop, margin_group_);
        body->addElement(0, 1, shared_scale_);
        body->setColumnSpacing(12);
        for (Cell& cell : cells_) cell.map->setColorScale(shared_scale_);
    }
    applyFonts();
}

void HeadGridView::updateTexts() {
    const Analysis& a = *analysis_;
    const bool logits = options_.show_logits;
    const bool masked = heatmap::anyMasked(a);
    const int heads = headCount();
    QString title = logits ? QStringLiteral("Attention logits (before softmax)")
                           : QStringLiteral("Attention weights (softmax)");
    if (compact_texts_) title = logits ? QStringLiteral("Attention logits") : QStringLiteral("Attention weights");
    title += QStringLiteral(" · %1 head%2").arg(heads).arg(heads == 1 ? "" : "s");
    if (a.input.cross) title += QStringLiteral(" · cross-attention");
    title_->setText(title);

    QString subtitle = QStringLiteral("rows: queries (top to bottom) · columns: keys · d_model %1, d_k %2")
                           .arg(a.config.d_model)
                           .arg(a.config.headDimK());
    if (masked) subtitle += QStringLiteral(" · %1: grey cells are masked").arg(maskWords(a));
    subtitle += QStringLiteral("\n") + heatmap::weightsOrigin(a);
    if (compact_texts_) {  // one line: where the weights come from, and what grey means
        subtitle = heatmap::weightsOrigin(a).section(QStringLiteral(": no pattern"), 0, 0);
        if (masked) subtitle += QStringLiteral(" · grey = masked");
    }
    if (!fully_masked_rows_.isEmpty())
        subtitle += compact_texts_ ? QStringLiteral(" · hatched: every key masked (0/0), shown as 0")
                                   : QStringLiteral(" · hatched rows: every key masked, softmax would be 0/0 "
                                                    "(PyTorch gives NaN); HeadScope shows 0");
    if (!options_.shared_scale && layout_shared_)
        subtitle += QStringLiteral(" · one colour scale for all heads: a bar per head has no room here");
    else if (!options_.shared_scale)
        subtitle += QStringLiteral(" · colour bar per head");
    subtitle_->setText(subtitle);

    QString bar = heatmap::valueName(a, logits);
    if (masked) bar += QStringLiteral("\n(grey = masked)");
    if (shared_scale_) shared_scale_->setLabel(bar);
}

void HeadGridView::wrapTitles(const QSize& laid_out) {
    // QCPTextElement does not wrap: long lines break at " · ", then at spaces, so that nothing
    // is cut at 2x fonts.
    const int width = (laid_out.width() < 200 ? 1920 : laid_out.width()) - 16;
    for (QCPTextElement* element : {title_, subtitle_})
        if (element) element->setText(fit::wrapLines(element->text(), element->font(), width));
}

void HeadGridView::updateLabels(const QSize& laid_out) {
    // Not laid out yet: judge by the token count alone until the resize that follows.
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(1920, 1400) : laid_out;
    const Analysis& a = *analysis_;
    const int n_q = a.nQuery(), n_kv = a.nKeyValue();
    const bool positions = options_.token_positions;
    const QStringList q = heatmap::queryLabels(a, 12, positions), k = heatmap::keyLabels(a, 12, positions);
    const bool tokens_changed = q != query_labels_ || k != key_labels_;
    query_labels_ = q;
    key_labels_ = k;

    // Estimate the pixels one cell gets, then decide: token labels, horizontal or rotated
    // key labels, or bare positions when labels would overlap.
    const QFont tick = heatmap::font(kTickPt, options_.font_scale);
    const QFontMetrics fm(tick);
    const int text_h = fm.height();
    const int columns = std::max(1, columns_);
    const int rows = (headCount() + columns - 1) / columns;
    const int query_w = heatmap::maxLabelWidth(q, tick);
    const int key_w = heatmap::maxLabelWidth(k, tick);
    const int bar = layout_shared_ ? kBarSpace : 0;
    const int own_bar = layout_shared_ ? 0 : ownBarWidth();
    // Every head has the same query words, so only the first column carries them (small
    // multiples): the other columns give that width to their cells. Column 0 is stretched by
    // the labels' width so that every heatmap gets the same width.
    const double total_w = double(size.width() - bar) - columns * (own_bar + 10.0);
    const double inner_w = std::max(1.0, (total_w - query_w) / columns - 16);
    double px_col = inner_w / std::max(1, n_kv);
    const QFontMetrics head_fm(heatmap::font(kHeadTitlePt, options_.font_scale, true));
    const bool short_titles =
        head_fm.horizontalAdvance(QStringLiteral("▶ head %1").arg(std::max(0, headCount() - 1))) > inner_w + 8;
    if (short_titles != short_titles_) {
        short_titles_ = short_titles;
        markSelection();
    }
    // Shared bar: key words only under the last row, so only the last row pays
    // for their height (its row is stretched by it); with a bar per head every row pays.
    const bool share_keys = layout_shared_ && rows > 1;
    const bool rotate = key_w + 6 > px_col;
    const double key_h = rotate ? key_w : text_h;
    const double body_h = double(size.height() - 3 * text_h - 16);
    const double per_row = 1.8 * text_h + 18 + 6;  // head title, paddings (half a line above the words)
    const double inner_h = share_keys ? (body_h - key_h - rows * per_row) / rows : body_h / rows - per_row - key_h;
    double px_row = std::max(0.0, inner_h) / std::max(1, n_q);
    // Once laid out at this size, the cells' real height replaces the estimate.
    if (!cells_.empty() && cells_.front().rect->rect().height() > 1 && laid_out == viewport().size()) {
        int shortest = cells_.front().rect->rect().height(), narrowest = cells_.front().rect->rect().width();
        for (const Cell& cell : cells_) {
            shortest = std::min(shortest, cell.rect->rect().height());
            narrowest = std::min(narrowest, cell.rect->rect().width());
        }
        // Just equalised (equalizeRows laid the grid out as it will be drawn): the measurement
        // is exact. Otherwise the layout may still change, and the smaller figure is the safe one.
        px_row = rows_measured_ ? double(shortest) / std::max(1, n_q) : std::min(px_row, double(shortest) / std::max(1, n_q));
        px_col = std::min(px_col, double(narrowest) / std::max(1, n_kv));
    }
    // The shared bar's label runs along the bar: shorten it ("attention weight (softmax)" ->
    // "attention weight" -> "attention") rather than let the bar's height cut it.
    if (shared_scale_) {
        const QFontMetrics bar_fm(shared_scale_->axis()->labelFont());
        const double bar_h = body_h - text_h;
        QStringList lines = shared_scale_->label().split(QLatin1Char('\n'));
        for (QString& line : lines) {
            if (bar_fm.horizontalAdvance(line) > bar_h && line.contains(QStringLiteral(" (")))
                line = line.left(line.indexOf(QStringLiteral(" (")));
            while (bar_fm.horizontalAdvance(line) > bar_h && line.contains(QLatin1Char(' ')))
                line = line.left(line.lastIndexOf(QLatin1Char(' ')));
        }
        shared_scale_->setLabel(lines.join(QLatin1Char('\n')));
    }

    // Words stay on the axes when they fit one per cell; when they do not, every k-th word is
    // shown (while at least two words fit) before falling back to bare positions: a projector at
    // 1024 x 768 and 2x fonts keeps words.
    using heatmap::TickMode;
    const auto stride = [&](double px_per_token) {
        // A full line apart, measured on the cells as laid out.
        return px_per_token <= 0 ? 1000 : std::max(1, static_cast<int>(std::ceil(1.0 * text_h / px_per_token)));
    };
    const int x_stride = stride(px_col), y_stride = stride(px_row);
    // Words as long as at least two of them fit (stride < n): never numbers while words fit.
    const auto max_stride = [](int n) { return std::max(kMaxLabelStride, n - 1); };
    const TickMode x_mode = (n_kv > kMaxTokenLabels || x_stride > max_stride(n_kv)) ? TickMode::Positions
                                                                                   : TickMode::Tokens;
    const TickMode y_mode = (n_q > kMaxTokenLabels || y_stride > max_stride(n_q)) ? TickMode::Positions
                                                                                  : TickMode::Tokens;
    const auto thinned = [](const QStringList& labels, int every) {
        if (every <= 1) return labels;
        QStringList out = labels;
        for (qsizetype i = 0; i < out.size(); ++i)
            if (i % every != 0) out[i].clear();
        return out;
    };
    const QStringList k_shown = thinned(k, x_stride), q_shown = thinned(q, y_stride);
    const bool strides_changed = x_stride != x_stride_ || y_stride != y_stride_;
    x_stride_ = x_stride;
    y_stride_ = y_stride;
    // Positions: about one number per four digit widths of axis.
    const double digits = fm.horizontalAdvance(QStringLiteral("0000"));
    const int x_ticks = static_cast<int>(px_col * n_kv / (1.5 * digits));
    const int y_ticks = static_cast<int>(px_row * n_q / (2.5 * text_h));
    // Not even two positions fit (dozens of heads in a small window): no numbers that would
    // run into the next head's ("10" + "0" reads "100").
    const TickMode x_shown = x_mode == TickMode::Positions && x_ticks < 2 ? TickMode::None : x_mode;
    const TickMode y_shown = y_mode == TickMode::Positions && y_ticks < 2 ? TickMode::None : y_mode;
    // The first column pays for the query words beside it, the last row for the key words under
    // it (when they are drawn at all).
    if (heads_grid_ && columns > 1) {
        const double words = y_shown == TickMode::None ? 0.0 : query_w;
        for (int c = 0; c < columns; ++c)
            heads_grid_->setColumnStretchFactor(c, c == 0 ? (inner_w + 16 + words) / (inner_w + 16) : 1.0);
    }
    if (heads_grid_) {
        const double keys = x_shown == TickMode::None ? 0.0 : key_h;
        for (int r = 0; r < rows; ++r)
            heads_grid_->setRowStretchFactor(
                r, share_keys && r == rows - 1 && inner_h > 0 ? (inner_h + per_row + keys) / (inner_h + per_row) : 1.0);
        // Rotated words stand half a line beyond their heatmap's edge: the next column keeps clear.
        heads_grid_->setColumnSpacing(x_shown == TickMode::Tokens && rotate ? std::max(10, text_h + 4) : 10);
    }
    // A bar per head: as many numbers as its height holds, two at least.
    const int bar_text_h = QFontMetrics(heatmap::font(kBarPt - 1, options_.font_scale)).height();
    const int bar_ticks = std::clamp(static_cast<int>(std::max(0.0, inner_h) / (2.2 * bar_text_h)), 2, 5);
    for (std::size_t index = 0; index < cells_.size(); ++index) {
        Cell& cell = cells_[index];
        QCPAxis* x = cell.rect->axis(QCPAxis::atBottom);
        QCPAxis* y = cell.rect->axis(QCPAxis::atLeft);
        const bool x_was = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker()) != nullptr;
        const bool y_was = qSharedPointerDynamicCast<QCPAxisTickerText>(y->ticker()) != nullptr;
        if (tokens_changed || strides_changed || x_was != (x_mode == TickMode::Tokens) || x_mode == TickMode::Positions)
            heatmap::setTicks(x, x_shown, k_shown, x_ticks);
        if (tokens_changed || strides_changed || y_was != (y_mode == TickMode::Tokens) || y_mode == TickMode::Positions)
            heatmap::setTicks(y, y_shown, q_shown, y_ticks);
        if (cell.scale) cell.scale->axis()->ticker()->setTickCount(bar_ticks);
        x->setTickLabelRotation(x_mode == TickMode::Tokens && rotate ? -90 : 0);
        y->setTickLabels(y_shown != TickMode::None && index % std::size_t(columns) == 0);
        // Shared bar: key words under the last row only (the same words as every head's); a
        // short last row leaves the columns beside it without them rather than a second row
        // of words in the middle of the grid.
        x->setTickLabels(x_shown != TickMode::None && (!share_keys || index >= std::size_t((rows - 1) * columns)));
    }
}

void HeadGridView::equalizeRows(const QSize& size) {
    // The rows' stretch factors above are estimates; measured on a layout pass they become
    // exact: every row's heatmaps get the same height, whatever words and titles take.
    const int columns = std::max(1, columns_);
    const int rows = (headCount() + columns - 1) / columns;
    // Only the shared bar's grid puts the key words under the last row alone; with a bar per
    // head every row carries the same words and is the same height already.
    if (!heads_grid_ || rows < 2 || !layout_shared_ || size != viewport().size()) return;
    fit::layOut(this);
    double total = 0, overhead = 0;
    std::vector<double> margins(std::size_t(rows), 0.0);
    for (int r = 0; r < rows; ++r) {
        const QCPAxisRect* rect = cells_[std::size_t(r * columns)].rect;
        margins[std::size_t(r)] = rect->outerRect().height() - rect->rect().height();  // title, words, paddings
        total += rect->outerRect().height();
        overhead += margins[std::size_t(r)];
    }
    const double inner = (total - overhead) / rows;
    if (inner <= 1) return;
    for (int r = 0; r < rows; ++r) heads_grid_->setRowStretchFactor(r, inner + margins[std::size_t(r)]);
    fit::layOut(this);  // the cells' heights as they will be drawn
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
            axis->setLabelFont(head);
        }
        // The first query word stands up to half a line above its heatmap: the head title
        // keeps clear of it.
        cell.rect->axis(QCPAxis::atTop)->setLabelPadding(static_cast<int>(4 + 0.5 * QFontMetrics(tick).height()));
        // Rotated labels render a few pixels longer than QCustomPlot measures: keep room.
        cell.rect->axis(QCPAxis::atBottom)->setPadding(static_cast<int>(2 + 6 * s));
        if (cell.scale) {
            cell.scale->setBarWidth(static_cast<int>(kOwnBarPx * s));
            cell.scale->axis()->setTickLabelFont(heatmap::font(kBarPt - 1, s));
            cell.scale->axis()->setSubTicks(false);
        }
    }
    if (shared_scale_) {
        shared_scale_->setBarWidth(static_cast<int>(16 * s));
        shared_scale_->axis()->setTickLabelFont(heatmap::font(kBarPt, s));
        shared_scale_->axis()->setLabelFont(heatmap::font(kBarPt, s));
        shared_scale_->axis()->setSubTicks(false);
    }
}

// --- selection and masked rows ---------------------------------------------------------------

void HeadGridView::setHead(int head) {
    if (head == head_) return;
    head_ = head;
    if (!analysis_) return;
    markSelection();
    structure_.clear();
    replot(rpQueuedReplot);
}

void HeadGridView::markSelection() {
    for (int h = 0; h < headCount(); ++h) {
        QCPAxis* top = cells_[std::size_t(h)].rect->axis(QCPAxis::atTop);
        const bool selected = h == head_;
        // Narrow heads (many of them, or large fonts) are titled "h3" so the title is never cut.
        const QString name = short_titles_ ? QStringLiteral("h%1").arg(h) : QStringLiteral("head %1").arg(h);
        top->setLabel(selected ? QStringLiteral("▶ ") + name : name);
        top->setLabelColor(selected ? QColor(200, 110, 0) : QColor(0, 0, 0));
        const QPen frame(selected ? QColor(230, 160, 0) : QColor(90, 90, 90), selected ? 3 : 1);
        for (QCPAxis* axis : cells_[std::size_t(h)].rect->axes()) axis->setBasePen(frame);
    }
}

void HeadGridView::markFullyMaskedRows() {
    for (QCPAbstractItem* item : row_marks_) removeItem(item);
    row_marks_.clear();
    fully_masked_rows_.clear();
    const MaskMatrix& allowed = analysis_->results.allowed;
    for (Eigen::Index r = 0; r < allowed.rows(); ++r)
        if (allowed.cols() > 0 && !allowed.row(r).any()) fully_masked_rows_ << static_cast<int>(r);
    for (const Cell& cell : cells_) {
        for (int r : fully_masked_rows_) {
            auto* mark = new QCPItemRect(this);
            mark->setClipAxisRect(cell.rect);
            for (QCPItemPosition* p : {mark->topLeft, mark->bottomRight})
                p->setAxes(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
            mark->topLeft->setCoords(-0.5, r - 0.5);
            mark->bottomRight->setCoords(allowed.cols() - 0.5, r + 0.5);
            mark->setPen(QPen(QColor(120, 0, 0), 1.5));
            mark->setBrush(QBrush(QColor(120, 0, 0, 140), Qt::BDiagPattern));
            row_marks_.push_back(mark);
        }
    }
}

// --- numbers in the cells (tiny configurations, worked by hand) ------------------------------

void HeadGridView::updateCellNumbers() {
    for (QCPItemText* item : number_items_) removeItem(item);
    number_items_.clear();
    const Analysis& a = *analysis_;
    const long long cells = static_cast<long long>(headCount()) * a.nQuery() * a.nKeyValue();
    if (!options_.cell_numbers || cells > 2500) return;  // beyond that no cell has room anyway
    const bool logits = options_.show_logits;
    const QFont font = heatmap::font(kTickPt, options_.font_scale);
    for (int h = 0; h < headCount(); ++h) {
        const Cell& cell = cells_[std::size_t(h)];
        const HeadResult& r = a.results.heads[std::size_t(h)];
        const Eigen::MatrixXf& m = logits ? r.logits : r.weights;
        const QCPRange range = colorScale(h) ? colorScale(h)->dataRange() : QCPRange(0, 1);
        for (int row = 0; row < m.rows(); ++row)
            for (int col = 0; col < m.cols(); ++col) {
                const float value = m(row, col);
                auto* text = new QCPItemText(this);
                text->setClipAxisRect(cell.rect);
                text->position->setAxes(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
                text->position->setCoords(col, row);
                text->setFont(font);
                text->setText(std::isfinite(value) ? QString::number(value, 'f', 2) : QStringLiteral("\u2013"));
                // Dark text on the bright end of the colour map, light text elsewhere.
                const double t = range.size() > 0 ? (value - range.lower) / range.size() : 0.5;
                const bool bright = logits ? std::abs(t - 0.5) < 0.3 : t > 0.55;
                text->setColor(bright || !std::isfinite(value) ? Qt::black : Qt::white);
                number_items_.push_back(text);
            }
    }
    placeCellNumbers();  // by the current layout; again after the next one (afterLayout)
}

void HeadGridView::placeCellNumbers() {
    if (number_items_.empty() || !analysis_) return;
    const QFontMetrics fm(number_items_.front()->font());
    const int need_w = fm.horizontalAdvance(QStringLiteral("-0.00")) + 4, need_h = fm.height();
    bool room = true;
    for (const Cell& cell : cells_) {
        const QRect r = cell.rect->rect();
        room = room && r.width() >= need_w * std::max(1, analysis_->nKeyValue()) &&
               r.height() >= need_h * std::max(1, analysis_->nQuery());
    }
    for (QCPItemText* item : number_items_) item->setVisible(room);
}

int HeadGridView::cellNumbersShown() const {
    return static_cast<int>(std::count_if(number_items_.begin(), number_items_.end(),
                                          [](const QCPItemText* t) { return t->visible(); }));
}

void HeadGridView::setHoverHighlight(bool on) {
    hover_highlight_ = on;
    if (!on) {
        if (hover_rect_) hover_rect_->setVisible(false);
        if (hover_label_) hover_label_->hide();
        replot(rpQueuedReplot);
    }
}

void HeadGridView::showHoverCell(const QPoint& pos) {
    if (!hover_highlight_ || !analysis_) return;
    const int h = headAt(pos);
    int row = -1, col = -1;
    const bool on = h >= 0 && heatmap::cellAt(headRect(h), pos, analysis_->nQuery(), analysis_->nKeyValue(), &row, &col);
    if (!hover_label_) {
        hover_label_ = new QLabel(this);
        hover_label_->setObjectName(QStringLiteral("hover_value"));
        hover_label_->setAttribute(Qt::WA_TransparentForMouseEvents);
        hover_label_->setStyleSheet(QStringLiteral("QLabel { background: rgba(0, 0, 0, 215); color: #ffd84d; "
                                                   "border: 2px solid #ffd84d; padding: 6px 12px; }"));
    }
    if (!on) {
        hover_label_->hide();
        if (hover_rect_) hover_rect_->setVisible(false);
        replot(rpQueuedReplot);
        return;
    }
    if (!hover_rect_) {
        hover_rect_ = new QCPItemRect(this);
        hover_rect_->setLayer(QStringLiteral("overlay"));
        hover_rect_->setPen(QPen(QColor(255, 216, 77), 4));
        hover_rect_->setBrush(Qt::NoBrush);
    }
    const Cell& cell = cells_[std::size_t(h)];
    hover_rect_->setClipAxisRect(cell.rect);
    for (QCPItemPosition* p : {hover_rect_->topLeft, hover_rect_->bottomRight})
        p->setAxes(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
    hover_rect_->topLeft->setCoords(col - 0.5, row - 0.5);
    hover_rect_->bottomRight->setCoords(col + 0.5, row + 0.5);
    hover_rect_->setVisible(true);
    const HeadResult& r = analysis_->results.heads[std::size_t(h)];
    const float value = options_.show_logits ? r.logits(row, col) : r.weights(row, col);
    const auto word = [](const QStringList& labels, int i) { return i < labels.size() ? labels[i] : QString::number(i); };
    hover_label_->setFont(heatmap::font(18, options_.font_scale, true));
    hover_label_->setText(QStringLiteral("%1  \u2192  %2:  %3")
                              .arg(word(query_labels_, row), word(key_labels_, col),
                                   std::isfinite(value) ? QString::number(value, 'f', 3) : QStringLiteral("masked")));
    hover_label_->adjustSize();
    QPoint at = pos + QPoint(24, 24);
    at.setX(std::min(at.x(), width() - hover_label_->width() - 4));
    at.setY(std::min(at.y(), height() - hover_label_->height() - 4));
    hover_label_->move(std::max(0, at.x()), std::max(0, at.y()));
    hover_label_->show();
    hover_label_->raise();
    replot(rpQueuedReplot);
}

// --- interaction ------------------------------------------------------------------------------

void HeadGridView::setHover(const QString& text) {
    if (text == hover_text_) return;
    hover_text_ = text;
    emit cellHovered(text);
}

void HeadGridView::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    const QString text = describe(event->position().toPoint());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else if (text != hover_text_) {
        if (!hover_highlight_) QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
    showHoverCell(event->position().toPoint());
    setHover(text);
}

void HeadGridView::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    pressed_head_ = event->button() == Qt::LeftButton ? headAt(event->position().toPoint()) : -1;
}

void HeadGridView::mouseReleaseEvent(QMouseEvent* event) {
    QCustomPlot::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton) return;
    const QPoint pos = event->position().toPoint();
    const int head = headAt(pos);
    if (head >= 0 && head == pressed_head_) {
        emit headClicked(head);
        int row = -1, col = -1;
        if (analysis_ && heatmap::cellAt(headRect(head), pos, analysis_->nQuery(), analysis_->nKeyValue(), &row, &col))
            emit cellClicked(head, row, col);
    }
    pressed_head_ = -1;
}

void HeadGridView::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    const int head = event->button() == Qt::LeftButton ? headAt(event->position().toPoint()) : -1;
    if (head >= 0) emit headActivated(head);
}

void HeadGridView::leaveEvent(QEvent* event) {
    QCustomPlot::leaveEvent(event);
    if (hover_label_) hover_label_->hide();
    if (hover_rect_ && hover_rect_->visible()) {
        hover_rect_->setVisible(false);
        replot(rpQueuedReplot);
    }
    setHover(QString());
}

void HeadGridView::resizeEvent(QResizeEvent* event) {
    // Decide columns and labels for the new size before QCustomPlot lays out and draws.
    if (analysis_) refresh(event->size());
    QCustomPlot::resizeEvent(event);
}

}  // namespace headscope::ui
