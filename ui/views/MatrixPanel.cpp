#include "MatrixPanel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "Heatmap.h"
#include "TextFit.h"
#include "TokenThinning.h"
#include "TypesetAxis.h"

namespace headscope::ui {

MatrixPanel::MatrixPanel(QCustomPlot* plot, QCPColorScale* scale) : plot_(plot) {
    rect_ = new QCPAxisRect(plot, true);
    TypesetAxis::adopt(rect_);  // "W_i^Q", "d_model" typeset
    heatmap::styleAxes(rect_);
    free_minimum_ = rect_->minimumSize();
    map_ = new CellColorMap(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
    if (scale) map_->setColorScale(scale);
}

double MatrixPanel::setMatrix(const Eigen::Ref<const Eigen::MatrixXf>& matrix) {
    rows_ = static_cast<int>(matrix.rows());
    cols_ = static_cast<int>(matrix.cols());
    QCPColorMapData* data = map_->data();
    data->setSize(cols_, rows_);
    data->setRange(QCPRange(0, std::max(0, cols_ - 1)), QCPRange(0, std::max(0, rows_ - 1)));
    if (cols_ == 1) data->setKeyRange(QCPRange(-0.5, 0.5));
    if (rows_ == 1) data->setValueRange(QCPRange(-0.5, 0.5));
    for (int c = 0; c < cols_; ++c)
        for (int r = 0; r < rows_; ++r) data->setCell(c, r, matrix(r, c));
    heatmap::setCellRanges(rect_, rows_, cols_);
    return matrix.size() ? double(matrix.cwiseAbs().maxCoeff()) : 0.0;
}

void MatrixPanel::setEmptyShape(int rows, int cols) {
    rows_ = rows;
    cols_ = cols;
    heatmap::setCellRanges(rect_, rows_, cols_);
}

void MatrixPanel::setTitle(const QString& title, const QFont& font) { setTitle(QStringList{title}, font); }

void MatrixPanel::setTitle(const QStringList& variants, const QFont& font) {
    title_variants_ = variants;
    QCPAxis* top = rect_->axis(QCPAxis::atTop);
    top->setLabel(variants.value(0));
    top->setLabelFont(font);
}

void MatrixPanel::setAxisNames(const QString& rows, const QString& cols, const QFont& font) {
    rect_->axis(QCPAxis::atLeft)->setLabel(rows);
    cols_name_ = cols;
    rect_->axis(QCPAxis::atBottom)->setLabel(shape_note_.isEmpty() ? cols : caption(cols));
    for (QCPAxis* axis : {rect_->axis(QCPAxis::atLeft), rect_->axis(QCPAxis::atBottom)}) {
        axis->setLabelFont(font);
        axis->setTickLabelFont(font);
    }
    // Nothing on the right but the overhang of the last column's number (half of it, about a
    // digit): QCustomPlot's 15 px there cost a panel of a row of three 9 px at 2x (issue 21).
    const int overhang = int(std::ceil(QFontMetricsF(font).horizontalAdvance(QLatin1Char('0'))));
    rect_->setMinimumMargins(QMargins(15, 15, overhang, 15));
}

void MatrixPanel::setRowLabels(const QStringList& labels, const QFont& font, bool numbered) {
    QCPAxis* left = rect_->axis(QCPAxis::atLeft);
    left->setTickLabelFont(font);
    row_labels_ = labels;
    row_labels_numbered_ = numbered;
    tick_font_ = font;
    if (labels.isEmpty()) {
        left->setTicker(QSharedPointer<QCPAxisTicker>::create());
        return;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int r = 0; r < labels.size(); ++r) ticker->addTick(r, labels[r]);
    left->setTicker(ticker);
}

void MatrixPanel::setBlocks(bool along_columns, int width, const QStringList& labels, int outlined,
                            const QFont& font) {
    const int extent = along_columns ? cols_ : rows_;
    blocks_along_columns_ = along_columns;
    block_width_ = width;
    block_labels_ = labels;
    outlined_block_ = outlined;
    tick_font_ = font;
    if (width <= 0 || extent <= 0) return;
    QCPAxis* x = rect_->axis(QCPAxis::atBottom);
    QCPAxis* y = rect_->axis(QCPAxis::atLeft);
    const QPen boundary(QColor(20, 20, 20), 1.2);
    for (int edge = width; edge < extent; edge += width) {
        auto* line = new QCPItemLine(plot_);
        line->setClipAxisRect(rect_);
        line->setPen(boundary);
        for (QCPItemPosition* p : {line->start, line->end}) p->setAxes(x, y);
        if (along_columns) {
            line->start->setCoords(edge - 0.5, -0.5);
            line->end->setCoords(edge - 0.5, rows_ - 0.5);
        } else {
            line->start->setCoords(-0.5, edge - 0.5);
            line->end->setCoords(cols_ - 0.5, edge - 0.5);
        }
    }
    // Block names where the ticks would be: the top axis (columns) or the right axis (rows).
    QCPAxis* axis = rect_->axis(along_columns ? QCPAxis::atTop : QCPAxis::atRight);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int b = 0; b < labels.size() && b * width < extent; ++b) ticker->addTick(b * width + (width - 1) / 2.0, labels[b]);
    axis->setTicker(ticker);
    axis->setTicks(true);
    axis->setTickLabels(true);
    axis->setTickLength(0, 0);
    axis->setTickLabelFont(font);
    // Above the columns, the first block's name reaches over the rect's corner: it stands clear
    // of the row numbers, whose first sticks up half a line there.
    if (along_columns) axis->setTickLabelPadding(int(std::ceil(QFontMetricsF(font).height() / 2)) + 1);
    if (outlined >= 0 && outlined * width < extent) {
        auto* frame = new QCPItemRect(plot_);
        frame->setClipAxisRect(rect_);
        frame->setPen(QPen(QColor(230, 160, 0), 3));
        frame->setBrush(Qt::NoBrush);
        for (QCPItemPosition* p : {frame->topLeft, frame->bottomRight}) p->setAxes(x, y);
        const double first = outlined * width - 0.5, last = std::min(extent, (outlined + 1) * width) - 0.5;
        if (along_columns) {
            frame->topLeft->setCoords(first, -0.5);
            frame->bottomRight->setCoords(last, rows_ - 0.5);
        } else {
            frame->topLeft->setCoords(-0.5, first);
            frame->bottomRight->setCoords(cols_ - 0.5, last);
        }
    }
}

void MatrixPanel::fitToRoom() {
    const QRect r = rect_->rect();
    if (r.width() <= 0 || r.height() <= 0 || rows_ == 0 || cols_ == 0) return;
    const QFontMetricsF tick(tick_font_);
    const double gap = 0.6 * tick.height();
    const double column_px = double(r.width()) / cols_, row_px = double(r.height()) / rows_;  // per cell
    // The title is centred on the panel: it may use the panel's outer margins on both sides.
    QCPAxis* top = rect_->axis(QCPAxis::atTop);
    if (!title_variants_.isEmpty()) {
        const QRect outer = rect_->outerRect();
        const double room = 2.0 * std::min(r.center().x() - outer.left(), outer.right() - r.center().x());
        const QString title = fit::longestThatFits(title_variants_, top->labelFont(), room);
        top->setLabel(title.isEmpty() ? title_variants_.back() : title);
    }
    auto numbers = [&](int extent, double pixels_per_cell, double room) {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
        ticker->setTickStep(fit::tickStep(extent, pixels_per_cell, room, false));
        return ticker;
    };
    QCPAxis* bottom = rect_->axis(QCPAxis::atBottom);
    bottom->setTicker(numbers(cols_, column_px, tick.horizontalAdvance(QString::number(cols_ - 1)) + gap));
    QCPAxis* left = rect_->axis(QCPAxis::atLeft);
    if (row_labels_.isEmpty()) {
        left->setTicker(numbers(rows_, row_px, tick.height() + gap / 2));
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        // Thinned words carry their positions ("6:because"), so they never read like the sequence.
        const int stride = fit::labelStride(row_px, tick.height());
        const QStringList shown = stride > 1 ? thinnedWithPositions(row_labels_, stride, row_labels_numbered_) : row_labels_;
        for (int i = 0; i < shown.size(); i += stride) ticker->addTick(i, shown[i]);
        left->setTicker(ticker);
    }
    if (block_width_ > 0 && !block_labels_.isEmpty()) {
        const int extent = blocks_along_columns_ ? cols_ : rows_;
        const double block_px = (blocks_along_columns_ ? column_px : row_px) * block_width_;
        double widest = tick.height();
        if (blocks_along_columns_)
            for (const QString& label : block_labels_) widest = std::max(widest, tick.horizontalAdvance(label));
        const int stride = fit::labelStride(block_px, widest + gap);
        // Every stride-th name, and the outlined block's always (issue 36 item 18: lesson 3 framed
        // head 1 under "h0 h2"), with its neighbours within a stride left out; the labels the view
        // left empty stay empty.
        const int blocks = std::min<int>(int(block_labels_.size()), (extent + block_width_ - 1) / block_width_);
        std::vector<int> named;
        if (outlined_block_ >= 0 && outlined_block_ < blocks && !block_labels_[outlined_block_].isEmpty())
            named.push_back(outlined_block_);
        for (int b = 0; b < blocks; ++b) {
            const bool clear = std::all_of(named.begin(), named.end(), [&](int n) { return std::abs(b - n) >= stride; });
            if (!block_labels_[b].isEmpty() && clear) named.push_back(b);
        }
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int b : named) ticker->addTick(b * block_width_ + (block_width_ - 1) / 2.0, block_labels_[b]);
        rect_->axis(blocks_along_columns_ ? QCPAxis::atTop : QCPAxis::atRight)->setTicker(ticker);
    }
}

QString MatrixPanel::ratioText(double rows, double cols) {
    const double ratio = rows >= cols ? rows / cols : cols / rows;
    const QString longer = QString::number(ratio, 'g', 3);
    return rows >= cols ? longer + QStringLiteral(":1") : QStringLiteral("1:") + longer;
}

bool MatrixPanel::shaped() const { return rect_->layout() && rect_->visible() && rows_ > 0 && cols_ > 0; }

void MatrixPanel::releaseShape() {
    rect_->setAutoMargins(QCP::msAll);
    rect_->setMinimumSize(free_minimum_);
    shape_note_.clear();
    rect_->axis(QCPAxis::atBottom)->setLabel(cols_name_);
}

void MatrixPanel::chooseShape(double min_side, double min_row, bool note) {
    // Thinned token rows read "6:because", wider than "because": the left margin keeps room for them.
    reserve_ = 0;
    if (!row_labels_.isEmpty() && !row_labels_numbered_) {
        const QFontMetricsF tick(tick_font_);
        double words = 0, numbered = 0;
        for (qsizetype i = 0; i < row_labels_.size(); ++i) {
            words = std::max(words, tick.horizontalAdvance(row_labels_[i]));
            numbered = std::max(numbered, tick.horizontalAdvance(QString::number(i) + QLatin1Char(':') + row_labels_[i]));
        }
        reserve_ = int(std::ceil(numbered - words));
    }
    const int thinned_reserve = reserve_;
    const double true_ratio = double(cols_) / rows_;  // width / height
    for (int attempt = 0; attempt < 2; ++attempt) {
        reserve_ = attempt == 0 ? 0 : thinned_reserve;
        const QRect room = rect_->rect().adjusted(reserve_, 0, 0, 0);
        if (room.width() <= 0 || room.height() <= 0) return;
        // The largest rect of the true shape (cols wide, rows high) inside the room ...
        double width = room.width(), height = room.height();
        if (width / height > true_ratio) width = height * true_ratio;
        else height = width / true_ratio;
        // ... unless a side would be too thin to see, or token rows too low to read: then the room's.
        const double rows_need = row_labels_.isEmpty() && !token_rows_ ? 0.0 : std::ceil(rows_ * min_row);
        height = std::max(height, std::min<double>(room.height(), std::max(min_side, rows_need)));
        width = std::max(width, std::min<double>(room.width(), min_side));
        shape_ = QSize(std::max(1, int(std::lround(width))), std::max(1, int(std::lround(height))));
        if (row_labels_.isEmpty() || shape_.height() >= rows_ * min_row - 0.5) break;  // every row keeps its word
    }
    if (!note) return;
    const double drawn_ratio = double(shape_.width()) / shape_.height();
    const bool honest = std::abs(drawn_ratio / true_ratio - 1.0) <= 0.025;  // a pixel's rounding
    drawn_ratio_ = ratioText(shape_.height(), shape_.width());
    shape_note_ = honest ? QString() : QStringLiteral("drawn %1, true %2").arg(drawn_ratio_, ratioText(rows_, cols_));
    rect_->axis(QCPAxis::atBottom)->setLabel(shape_note_.isEmpty() ? cols_name_ : caption(cols_name_));
}

QString MatrixPanel::caption(const QString& cols) const {
    // Centred under the panel, within its column (caption_room_, set by layOutToShape), in as
    // many lines as the axis' name takes already where the column allows: the note on its own
    // line, or split after the name ("d_k, drawn 3.06:1" over "true 4:1"), or each on its own line.
    const QString drawn = QStringLiteral("drawn %1").arg(drawn_ratio_), truth = QStringLiteral("true %1").arg(ratioText(rows_, cols_));
    const QString named = cols.isEmpty() ? QString() : cols + QLatin1Char('\n');
    // Both ratios always (issue 36 item 4: W_i^Q said "true 8:1" alone beside "drawn 5.74:1, true 8:1").
    const QString both = drawn + QLatin1Char('\n') + truth;
    const QStringList variants{named + drawn + QStringLiteral(", ") + truth,
                               (cols.isEmpty() ? drawn : cols + QStringLiteral(", ") + drawn) + QLatin1Char('\n') + truth,
                               named + both, both};
    const QFontMetricsF metrics(rect_->axis(QCPAxis::atBottom)->labelFont());
    for (const QString& variant : variants) {
        double widest = 0;
        for (const QString& line : variant.split(QLatin1Char('\n'))) widest = std::max(widest, metrics.horizontalAdvance(line));
        if (widest <= caption_room_) return variant;
    }
    return both;  // the narrowest: what the panel shows and what it must not hide
}

void MatrixPanel::captionRooms(QCustomPlot* plot, const QList<MatrixPanel*>& shown) {
    // A panel's column reaches halfway to its neighbours' cells in its row (the widget's edges
    // where it has none, or a colour bar's); its caption, centred under it, takes twice the nearer side.
    for (MatrixPanel* panel : shown) {
        const QRect outer = panel->rect_->outerRect();
        double left = plot->viewport().left(), right = plot->viewport().right() + 1;
        for (MatrixPanel* other : shown) {
            const QRect o = other->rect_->outerRect();
            if (other == panel || o.bottom() < outer.top() || o.top() > outer.bottom()) continue;  // another row
            if (o.center().x() < outer.center().x()) left = std::max(left, (o.right() + 1 + outer.left()) / 2.0);
            else right = std::min(right, (outer.right() + 1 + o.left()) / 2.0);
        }
        // A colour bar beside the panel (its numbers fill its outer rect) ends the column too.
        for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
            auto* bar = qobject_cast<QCPColorScale*>(element);
            if (!bar || !bar->visible() || !bar->layout()) continue;
            const QRect o = bar->outerRect();
            if (o.bottom() < outer.top() || o.top() > outer.bottom()) continue;
            if (o.center().x() < outer.center().x()) left = std::max(left, double(o.right() + 1));
            else right = std::min(right, double(o.left()));
        }
        const double centre = panel->rect_->rect().left() + panel->rect_->rect().width() / 2.0;
        panel->caption_room_ = std::max(0.0, 2.0 * std::min(centre - left, right - centre));
    }
}

void MatrixPanel::applyShape() {
    const QRect room = rect_->rect().adjusted(reserve_, 0, 0, 0);
    if (shape_.isEmpty() || room.width() <= 0 || room.height() <= 0) return;
    const int dx = std::max(0, room.width() - shape_.width()), dy = std::max(0, room.height() - shape_.height());
    const QMargins m = rect_->margins();
    rect_->setAutoMargins(QCP::msNone);  // fixed now: the labels the margins were measured with stay
    rect_->setMinimumSize(std::min(free_minimum_.width(), shape_.width()), std::min(free_minimum_.height(), shape_.height()));
    rect_->setMargins(QMargins(m.left() + reserve_ + dx / 2, m.top() + dy / 2, m.right() + dx - dx / 2, m.bottom() + dy - dy / 2));
}

QList<MatrixPanel*> MatrixPanel::layOutFree(QCustomPlot* plot, const QList<MatrixPanel*>& panels) {
    QList<MatrixPanel*> shown;
    for (MatrixPanel* panel : panels) {
        panel->releaseShape();
        panel->shape_ = QSize();
        if (panel->shaped()) shown << panel;
    }
    fit::layOut(plot);
    for (MatrixPanel* panel : panels) panel->fitToRoom();
    return shown;
}

void MatrixPanel::layOutToShape(QCustomPlot* plot, const QList<MatrixPanel*>& panels, double min_side, double min_row) {
    const QList<MatrixPanel*> shown = layOutFree(plot, panels);
    captionRooms(plot, shown);
    // Twice: the notes take a line under the panel, which changes the room the shape is chosen in.
    for (int pass = 0; pass < 2; ++pass) {
        for (MatrixPanel* panel : shown) panel->chooseShape(min_side, min_row, true);
        fit::layOut(plot);
    }
    for (MatrixPanel* panel : shown) {
        panel->chooseShape(min_side, min_row, false);  // the size in the room the notes leave
        panel->applyShape();
    }
    fit::layOut(plot);
    for (MatrixPanel* panel : panels) panel->fitToRoom();
}

}  // namespace headscope::ui
