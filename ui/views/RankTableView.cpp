#include "RankTableView.h"

#include <QHeaderView>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <cmath>

#include "HeadColors.h"
#include "HeadNames.h"
#include "Heatmap.h"
#include "RotaryDelta.h"
#include "TypesetHeaderView.h"
#include "TypesetText.h"

namespace headscope::ui {

namespace {

bool sameRows(const std::vector<RankRow>& a, const std::vector<RankRow>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const RankRow& x, const RankRow& y) {
        return x.head == y.head && x.qk == y.qk && x.qk_bound == y.qk_bound && x.ov == y.ov &&
               x.ov_bound == y.ov_bound && x.logits == y.logits && x.logits_bound == y.logits_bound;
    });
}

// Sets what differs only: every setData is a dataChanged the view lays out again.
void setTextIfChanged(QTableWidgetItem* item, const QString& text) {
    if (item->text() != text) item->setText(text);
}
void setTipIfChanged(QTableWidgetItem* item, const QString& tip) {
    if (item->toolTip() != tip) item->setToolTip(tip);
}

}  // namespace

RankTableView::RankTableView(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("rank_table"));
    setHorizontalHeader(new TypesetHeaderView(Qt::Horizontal, this));  // "W_QK" typeset
    setColumnCount(4);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->setVisible(false);
    // Sized by fitColumns() once per change; ResizeToContents would measure every column again
    // on each item's dataChanged.
    horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setStretchLastSection(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    setToolTip(tr("Numerical rank of each head's products against the largest rank they can have. "
                  "Type more tokens than d_k and the logits' rank stops at d_k: the low-rank bottleneck."));
    const QString header_tips[] = {QString(), tr("rank of W_QK,i = W_i^Q (W_i^K)ᵀ ≤ min(d_k, d_model)"),
                                   tr("rank of W_OV,i = W_i^V W_i^O ≤ min(d_v, d_model)"),
                                   tr("rank of the logits Q_i K_iᵀ ≤ min(d_k, n_q, n_kv)")};
    for (int c = 0; c < 4; ++c) {
        auto* header = new QTableWidgetItem;
        header->setToolTip(header_tips[c]);
        setHorizontalHeaderItem(c, header);
    }
    connect(this, &QTableWidget::itemSelectionChanged, this, [this]() {
        if (updating_) return;
        const auto rows = selectionModel()->selectedRows();
        if (!rows.isEmpty()) emit headClicked(rows.front().row());
    });
}

void RankTableView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    refresh();
}

void RankTableView::setRotaryDelta(RotaryDelta* delta) {
    delta_ = delta;
    connect(delta_, &RotaryDelta::resultReady, this, &RankTableView::refresh);
    connect(delta_, &RotaryDelta::deltaChanged, this, &RankTableView::refresh);
}

void RankTableView::setHead(int head) {
    head_ = head;
    updating_ = true;
    if (head >= 0 && head < rowCount()) selectRow(head);
    updating_ = false;
}

void RankTableView::setOptions(const ViewOptions& options) {
    options_ = options;
    setFont(heatmap::font(10, options.font_scale));
    horizontalHeader()->setFont(heatmap::font(10, options.font_scale, true));
    // Rows as tall as their text and a little air, not the style's 30 px: 8 heads in the
    // spectra dock's 250 px below the heads at full HD.
    const int row = QFontMetrics(font()).height() + 3;
    verticalHeader()->setMinimumSectionSize(row);
    verticalHeader()->setDefaultSectionSize(row);
    fitColumns();
}

void RankTableView::setKeepsWholeWidth(bool whole) {
    if (whole == whole_width_) return;
    whole_width_ = whole;
    setHorizontalScrollBarPolicy(whole ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
    fitColumns();
}

int RankTableView::heightForEveryRow() const {
    const int rows = rowCount() > 0 ? rowCount() * rowHeight(0) : 0;
    return horizontalHeader()->sizeHint().height() + rows + 2 * frameWidth();
}

void RankTableView::setHeadsOff(std::vector<bool> off) {
    if (off == heads_off_) return;
    heads_off_ = std::move(off);
    markHeadsOff();
    fitColumns();
}

// "■5 · kv 1 off": the head, its key/value head under grouped-query attention, and whether it is knocked out.
QString RankTableView::headLabel(int r) const {
    const int heads = analysis_ ? analysis_->weights().heads : 0, kv_heads = analysis_ ? analysis_->weights().kv_heads : 0;
    const bool off = r < int(heads_off_.size()) && heads_off_[std::size_t(r)];
    return QStringLiteral("■%1").arg(r) + kvSuffix(r, heads, kv_heads) + (off ? QStringLiteral(" off") : QString());
}

void RankTableView::markHeadsOff() {
    for (int r = 0; r < rowCount(); ++r) {
        const bool off = r < int(heads_off_.size()) && heads_off_[std::size_t(r)];
        setTextIfChanged(item(r, 0), headLabel(r));
        item(r, 0)->setForeground(off ? QColor(190, 30, 30) : headTextColor(r, palette().base().color()));
        for (int c = 1; c < columnCount(); ++c) item(r, c)->setForeground(off ? QColor(150, 150, 150) : palette().text().color());
    }
}

void RankTableView::fitColumns() {
    resizeColumnsToContents();
    // Every column visible: the table keeps the width of its contents. In a narrow room it
    // gives the width up and scrolls sideways instead of pushing the window off the screen.
    setMinimumWidth(whole_width_ ? horizontalHeader()->length() + verticalScrollBar()->sizeHint().width() + 2 * frameWidth() : 0);
    content_widths_.clear();
    for (int c = 0; c < columnCount(); ++c) content_widths_.push_back(columnWidth(c));
    spreadColumns();
}

void RankTableView::spreadColumns() {
    // Wider than its contents (alone on a lesson step about ranks, in a small room or F5): the
    // columns share the room, so the numbers stand apart under their headers instead of
    // huddling at the left.
    if (int(content_widths_.size()) != columnCount()) return;
    int extra = viewport()->width();
    for (int w : content_widths_) extra -= w;
    extra = std::max(0, extra);
    for (int c = 0; c < columnCount(); ++c) {
        const int share = extra / (columnCount() - c);
        horizontalHeader()->resizeSection(c, content_widths_[std::size_t(c)] + share);
        extra -= share;
    }
}

void RankTableView::changeEvent(QEvent* event) {
    QTableWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) markHeadsOff();  // presentation mode's dark table
}

void RankTableView::resizeEvent(QResizeEvent* event) {
    QTableWidget::resizeEvent(event);
    spreadColumns();
}

void RankTableView::refresh() {
    std::vector<RankRow> rows = analysis_ ? rankTable(*analysis_) : std::vector<RankRow>{};
    // A rotary layer: W_QK,i at the shared Delta once computed (until then, "computing").
    const bool rotary = delta_ && analysis_ && analysis_->rotary.enabled();
    const auto rotated = rotary ? delta_->resultFor(analysis_) : nullptr;
    if (rotated)
        for (RankRow& r : rows)
            if (r.head < static_cast<int>(rotated->circuits.qk.size())) r.qk = rotated->circuits.qk[std::size_t(r.head)].rank;
    const RankRow bounds = rows.empty() ? RankRow{} : rows.front();
    const QString qk_header = !rotary ? tr("W_QK\n≤ %1").arg(bounds.qk_bound)
                              : rotated ? tr("W_QK(Δ=%2)\n≤ %1").arg(bounds.qk_bound).arg(rotated->circuits.delta)
                                        : tr("W_QK(Δ=%1)\ncomputing").arg(delta_->delta());
    const bool same_heads = rowCount() == 0 || !item(0, 0) || item(0, 0)->text() == headLabel(0);
    if (sameRows(rows, shown_) && rowCount() == static_cast<int>(rows.size()) && same_heads &&
        horizontalHeaderItem(1)->text() == qk_header)
        return;  // nothing changed
    updating_ = true;
    const QString header_texts[] = {tr("head"), qk_header,
                                    tr("W_OV\n≤ %1").arg(bounds.ov_bound), tr("logits\n≤ %1").arg(bounds.logits_bound)};
    for (int c = 0; c < 4; ++c) setTextIfChanged(horizontalHeaderItem(c), header_texts[c]);
    const int old_rows = rowCount();
    setRowCount(static_cast<int>(rows.size()));
    for (int r = old_rows; r < rowCount(); ++r) {  // new rows: their items once
        auto* head = new QTableWidgetItem(QStringLiteral("■%1").arg(r));
        head->setForeground(headTextColor(r, palette().base().color()));
        setItem(r, 0, head);
        for (int c = 1; c < 4; ++c) {
            auto* cell = new QTableWidgetItem;
            cell->setTextAlignment(Qt::AlignCenter);
            setItem(r, c, cell);
        }
    }
    for (int r = 0; r < rowCount(); ++r) setTextIfChanged(item(r, 0), headLabel(r));
    for (const RankRow& r : rows) {
        const int values[][2] = {{r.qk, r.qk_bound}, {r.ov, r.ov_bound}, {r.logits, r.logits_bound}};
        for (int c = 0; c < 3; ++c) {
            QTableWidgetItem* cell = item(r.head, c + 1);
            setTextIfChanged(cell, QString::number(values[c][0]));  // the bound is in the header
            setTipIfChanged(cell, values[c][0] < values[c][1] ? tr("below its bound: the factors are not full rank") : QString());
        }
    }
    if (head_ >= 0 && head_ < rowCount() && old_rows != rowCount()) selectRow(head_);
    if (old_rows != rowCount()) emit rowCountChanged();
    markHeadsOff();
    fitColumns();
    shown_ = std::move(rows);
    updating_ = false;
}

namespace {
constexpr int kCellPadding = 8;  // each side of a cell's text
}

std::vector<int> RankTableView::wholeColumnWidths(int min_width) const {
    const QFontMetrics cell(font()), header(horizontalHeader()->font());
    std::vector<int> widths(std::size_t(columnCount()), 0);
    for (int c = 0; c < columnCount(); ++c) {
        int w = 0;
        if (const QTableWidgetItem* h = horizontalHeaderItem(c))
            for (const QString& line : h->text().split(QLatin1Char('\n'))) w = std::max(w, header.horizontalAdvance(line));
        for (int r = 0; r < rowCount(); ++r)
            if (const QTableWidgetItem* it = item(r, c)) w = std::max(w, cell.horizontalAdvance(it->text()));
        widths[std::size_t(c)] = w + 2 * kCellPadding;
    }
    int natural = 1;
    for (int w : widths) natural += w;
    int extra = std::max(0, min_width - natural);  // the room over the contents, shared by the columns
    for (std::size_t c = 0; c < widths.size(); ++c) {
        const int share = extra / int(widths.size() - c);
        widths[c] += share;
        extra -= share;
    }
    return widths;
}

int RankTableView::wholeRowHeight() const { return QFontMetrics(font()).height() * 3 / 2; }

int RankTableView::wholeHeaderHeight() const {
    int lines = 1, typeset_height = 0;
    for (int c = 0; c < columnCount(); ++c)
        if (const QTableWidgetItem* h = horizontalHeaderItem(c)) {
            lines = std::max(lines, int(h->text().count(QLatin1Char('\n'))) + 1);
            typeset_height = std::max(typeset_height, int(std::ceil(typeset::size(h->text(), horizontalHeader()->font()).height())));
        }
    return std::max(QFontMetrics(horizontalHeader()->font()).height() * lines, typeset_height) + kCellPadding;
}

QSize RankTableView::wholeSize(int min_width) const {
    int width = 1;
    for (int w : wholeColumnWidths(min_width)) width += w;
    return QSize(width, wholeHeaderHeight() + rowCount() * wholeRowHeight() + 1);
}

void RankTableView::paintWhole(QPainter& painter, int min_width) const {
    const std::vector<int> widths = wholeColumnWidths(min_width);
    const QSize whole = wholeSize(min_width);
    const int header_h = wholeHeaderHeight(), row_h = wholeRowHeight();
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), whole), Qt::white);
    painter.fillRect(QRect(0, 0, whole.width(), header_h), QColor(238, 238, 238));
    // The selected head's row, as the table highlights it (lighter: it is printed).
    for (const QModelIndex& index : selectionModel() ? selectionModel()->selectedRows() : QModelIndexList())
        painter.fillRect(QRect(0, header_h + index.row() * row_h, whole.width(), row_h), QColor(205, 225, 250));
    painter.setPen(QColor(190, 190, 190));
    for (int r = 0; r <= rowCount(); ++r) painter.drawLine(0, header_h + r * row_h, whole.width() - 1, header_h + r * row_h);
    painter.drawLine(0, 0, whole.width() - 1, 0);
    int x = 0;
    for (std::size_t c = 0; c <= widths.size(); ++c) {
        painter.drawLine(x, 0, x, whole.height() - 1);
        if (c < widths.size()) x += widths[c];
    }
    x = 0;
    for (int c = 0; c < columnCount(); ++c) {
        const int w = widths[std::size_t(c)];
        painter.setFont(horizontalHeader()->font());
        painter.setPen(Qt::black);
        if (const QTableWidgetItem* h = horizontalHeaderItem(c)) {  // typeset, as on screen ("W_QK")
            const QSizeF size = typeset::size(h->text(), painter.font());
            painter.save();
            painter.translate(x + (w - size.width()) / 2, (header_h - size.height()) / 2);
            typeset::draw(&painter, h->text(), painter.font(), Qt::black);
            painter.restore();
        }
        painter.setFont(font());
        for (int r = 0; r < rowCount(); ++r) {
            const QTableWidgetItem* it = item(r, c);
            if (!it) continue;
            const QVariant fg = it->data(Qt::ForegroundRole);
            painter.setPen(fg.isValid() ? fg.value<QBrush>().color() : QColor(Qt::black));
            const Qt::Alignment align = c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignCenter;
            painter.drawText(QRect(x + kCellPadding, header_h + r * row_h, w - 2 * kCellPadding, row_h), int(align), it->text());
        }
        x += w;
    }
    painter.restore();
}

}  // namespace headscope::ui
