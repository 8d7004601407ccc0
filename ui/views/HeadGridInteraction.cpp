// HeadGridView, part 3: the selected head, fully masked rows, numbers in the cells, hover and
// clicks (the layout is in HeadGridView.cpp, the words on the axes in HeadGridLabels.cpp).
#include <QFontMetrics>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "HeadGridView.h"
#include "HeadNames.h"
#include "Heatmap.h"

namespace headscope::ui {

// --- selection and masked rows ---------------------------------------------------------------

void HeadGridView::setHead(int head) {
    if (head == head_) return;
    head_ = head;
    if (!analysis_) return;
    markSelection();
    structure_.clear();
    replot(rpQueuedReplot);
}

void HeadGridView::setHeadsOff(std::vector<bool> off) {
    if (off == heads_off_) return;
    heads_off_ = std::move(off);
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
        const QString name = gridHeadTitle(h, headCount(), analysis_ ? analysis_->weights().kv_heads : 0, short_titles_);
        const bool off = headOff(h);  // knocked out: a red frame and "off", as in the Model tab
        top->setLabel((selected ? QStringLiteral("▶ ") + name : name) + (off ? QStringLiteral(" · off") : QString()));
        top->setLabelColor(off ? QColor(190, 30, 30) : selected ? QColor(200, 110, 0) : QColor(0, 0, 0));
        const QPen frame(off ? QColor(200, 40, 40) : selected ? QColor(230, 160, 0) : QColor(90, 90, 90),
                         selected || off ? 3 : 1, off && selected ? Qt::DashLine : Qt::SolidLine);
        for (QCPAxis* axis : cells_[std::size_t(h)].rect->axes()) axis->setBasePen(frame);
    }
}

void HeadGridView::markFullyMaskedRows() {
    for (QCPAbstractItem* item : row_marks_) removeItem(item);
    row_marks_.clear();
    fully_masked_rows_ = heatmap::fullyMaskedRows(*analysis_);
    for (const Cell& cell : cells_)
    {
        for (int r : fully_masked_rows_) row_marks_.push_back(heatmap::hatchRow(this, cell.rect, r, analysis_->nKeyValue()));
        for (QCPAbstractItem* line : heatmap::sentenceBorder(this, cell.rect, *analysis_)) row_marks_.push_back(line);
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
        const std::shared_ptr<const Eigen::MatrixXf> logits_map = logits ? a.headLogits(h) : nullptr;
        const Eigen::MatrixXf& m = logits ? *logits_map : r.weights;
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
    const float value = options_.show_logits ? analysis_->logitAt(h, row, col) : r.weights(row, col);
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

}  // namespace headscope::ui
