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

namespace headscope::ui {
namespace {

// Point sizes at font_scale 1: readable from the back of a classroom at 1.5-2.
constexpr double kTitlePt = 14, kSubtitlePt = 10, kHeadTitlePt = 11, kTickPt = 10, kBarPt = 10;


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
}

void HeadGridView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    // Drawn at once (results arrive at most once per computation): a full replot when the
    // layout or a colour bar changed, else only the colour maps' layer.
    analysis_ = std::move(analysis);
    if (refresh(viewport().size()))
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

bool HeadGridView::refresh(const QSize& size) {
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
    const int columns = fixed_columns_ > 0 ? std::min(fixed_columns_, heads) : gridColumns(heads, analysis_ ? analysis_->nQuery() : 1, analysis_ ? analysis_->nKeyValue() : 1, size,
                                                            options_.font_scale, options_.shared_scale ? kBarSpace : 0);
    const bool shared = options_.shared_scale;
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
    markSelection();
    updateTexts();
    updateLabels(size);

    QString now = structure();
    now += QStringLiteral("|%1x%2").arg(size.width()).arg(size.height());
    const bool changed = now != structure_;
    structure_ = std::move(now);
    return changed;
}

QString HeadGridView::structure() const {
    QString s;
    QTextStream out(&s);
    out << headCount() << ' ' << columns_ << ' ' << options_.show_logits << options_.shared_scale << ' '
        << options_.font_scale << '|' << (title_ ? title_->text() : QString()) << '|'
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

void HeadGridView::clearLayout() {
    clearItems();
    row_marks_.clear();
    clearPlottables();
    plotLayout()->clear();
    delete margin_group_;
    margin_group_ = nullptr;
    cells_.clear();
    title_ = subtitle_ = nullptr;
    shared_scale_ = nullptr;
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
    grid->setRowSpacing(6);
    grid->setColumnSpacing(10);

    const int rows = (heads + columns - 1) / columns;
    grid->expandTo(rows, columns);
    cells_.resize(static_cast<std::size_t>(heads));
    for (int h = 0; h < heads; ++h) {
        Cell& cell = cells_[static_cast<std::size_t>(h)];
        cell.rect = new QCPAxisRect(this, true);
        heatmap::styleAxes(cell.rect);
        cell.rect->axis(QCPAxis::atTop)->setLabel(QStringLiteral("head %1").arg(h));
        cell.rect->setMarginGroup(QCP::msAll, margin_group_);
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
        shared_scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margin_group_);
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
    title += QStringLiteral(" · %1 head%2").arg(heads).arg(heads == 1 ? "" : "s");
    if (a.input.cross) title += QStringLiteral(" · cross-attention");
    title_->setText(title);

    QString subtitle = QStringLiteral("rows: queries (top to bottom) · columns: keys · d_model %1, d_k %2")
                           .arg(a.config.d_model)
                           .arg(a.config.headDimK());
    if (masked) subtitle += QStringLiteral(" · %1: grey cells are masked").arg(maskWords(a));
    subtitle += QStringLiteral("\n") + heatmap::weightsOrigin(a);
    if (!fully_masked_rows_.isEmpty())
        subtitle += QStringLiteral(" · hatched rows: every key masked, softmax would be 0/0 "
                                   "(PyTorch gives NaN); HeadScope shows 0");
    if (!options_.shared_scale) subtitle += QStringLiteral(" · colour bar per head");
    subtitle_->setText(subtitle);

    QString bar = heatmap::valueName(a, logits);
    if (masked) bar += QStringLiteral("\n(grey = masked)");
    if (shared_scale_) shared_scale_->setLabel(bar);
}

void HeadGridView::updateLabels(const QSize& laid_out) {
    // Not laid out yet: judge by the token count alone until the resize that follows.
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(1920, 1400) : laid_out;
    const Analysis& a = *analysis_;
    const int n_q = a.nQuery(), n_kv = a.nKeyValue();
    const QStringList q = heatmap::queryLabels(a), k = heatmap::keyLabels(a);
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
    const int bar = options_.shared_scale ? kBarSpace : 0;
    const int own_bar = options_.shared_scale ? 0 : 70;
    const double head_w = double(size.width() - bar) / columns - own_bar - 10;
    const double head_h = double(size.height() - 3 * text_h - 16) / rows - 6;
    const double px_col = (head_w - query_w - 16) / std::max(1, n_kv);
    const bool rotate = key_w + 6 > px_col;
    const double key_h = rotate ? key_w : text_h;
    const double px_row = (head_h - 1.3 * text_h - key_h - 18) / std::max(1, n_q);

    using heatmap::TickMode;
    const TickMode x_mode = (n_kv > kMaxTokenLabels || px_col < 0.8 * text_h) ? TickMode::Positions
                                                                               : TickMode::Tokens;
    const TickMode y_mode = (n_q > kMaxTokenLabels || px_row < 0.8 * text_h) ? TickMode::Positions
                                                                              : TickMode::Tokens;
    // Positions: about one number per four digit widths of axis.
    const double digits = fm.horizontalAdvance(QStringLiteral("0000"));
    const int x_ticks = static_cast<int>(px_col * n_kv / (1.5 * digits));
    const int y_ticks = static_cast<int>(px_row * n_q / (2.5 * text_h));
    for (Cell& cell : cells_) {
        QCPAxis* x = cell.rect->axis(QCPAxis::atBottom);
        QCPAxis* y = cell.rect->axis(QCPAxis::atLeft);
        const bool x_was = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker()) != nullptr;
        const bool y_was = qSharedPointerDynamicCast<QCPAxisTickerText>(y->ticker()) != nullptr;
        if (tokens_changed || x_was != (x_mode == TickMode::Tokens) || x_mode == TickMode::Positions)
            heatmap::setTicks(x, x_mode, k, x_ticks);
        if (tokens_changed || y_was != (y_mode == TickMode::Tokens) || y_mode == TickMode::Positions)
            heatmap::setTicks(y, y_mode, q, y_ticks);
        x->setTickLabelRotation(x_mode == TickMode::Tokens && rotate ? -90 : 0);
    }
}

void HeadGridView::applyFonts() {
    const double s = options_.font_scale;
    if (title_) title_->setFont(heatmap::font(kTitlePt, s, true));
    if (subtitle_) subtitle_->setFont(heatmap::font(kSubtitlePt, s));
    const QFont tick = heatmap::font(kTickPt, s);
    const QFont head = heatmap::font(kHeadTitlePt, s, true);
    for (Cell& cell : cells_) {
        for (QCPAxis* axis : cell.rect->axes()) {
            axis->setTickLabelFont(tick);
            axis->setLabelFont(head);
        }
        // Rotated labels render a few pixels longer than QCustomPlot measures: keep room.
        cell.rect->axis(QCPAxis::atBottom)->setPadding(static_cast<int>(2 + 6 * s));
        if (cell.scale) {
            cell.scale->setBarWidth(static_cast<int>(10 * s));
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
        top->setLabel(selected ? QStringLiteral("▶ head %1").arg(h) : QStringLiteral("head %1").arg(h));
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
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
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
    setHover(QString());
}

void HeadGridView::resizeEvent(QResizeEvent* event) {
    // Decide columns and labels for the new size before QCustomPlot lays out and draws.
    if (analysis_) refresh(event->size());
    QCustomPlot::resizeEvent(event);
}

}  // namespace headscope::ui
