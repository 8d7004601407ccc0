#include "Heatmap.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ColorMaps.h"
#include "Downsample.h"

namespace headscope::ui::heatmap {

QFont font(double point_size, double scale, bool bold) {
    QFont f;
    f.setFamily(QString::fromLatin1(kTextFamily));  // SVG names it: the same widths wherever the file is opened
    f.setPointSizeF(std::max(6.0, point_size * (scale > 0 ? scale : 1.0)));
    f.setBold(bold);
    return f;
}

void styleAxes(QCPAxisRect* rect) {
    rect->setupFullAxesBox(false);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    const QPen frame(QColor(90, 90, 90), 1);
    for (QCPAxis* axis : rect->axes()) {
        axis->grid()->setVisible(false);
        axis->grid()->setSubGridVisible(false);
        axis->setBasePen(frame);
        axis->setTickPen(frame);
        axis->setSubTicks(false);
        axis->setTickLengthIn(0);
        axis->setTickLengthOut(kTickLengthOut);
        axis->setTickLabelPadding(3);
        axis->setLabelPadding(4);
        axis->setPadding(2);
    }
    for (QCPAxis* axis : {rect->axis(QCPAxis::atTop), rect->axis(QCPAxis::atRight)}) {
        axis->setTicks(false);
        axis->setTickLabels(false);
    }
    rect->axis(QCPAxis::atLeft)->setRangeReversed(true);
    rect->axis(QCPAxis::atRight)->setRangeReversed(true);
}

void setCellRanges(QCPAxisRect* rect, int n_q, int n_kv) {
    const QCPRange x(-0.5, std::max(1, n_kv) - 0.5);
    const QCPRange y(-0.5, std::max(1, n_q) - 0.5);
    rect->axis(QCPAxis::atBottom)->setRange(x);
    rect->axis(QCPAxis::atTop)->setRange(x);
    rect->axis(QCPAxis::atLeft)->setRange(y);
    rect->axis(QCPAxis::atRight)->setRange(y);
}

void setTicks(QCPAxis* axis, TickMode mode, const QStringList& labels, int position_ticks) {
    switch (mode) {
        case TickMode::Tokens: {
            auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
            if (!ticker) {
                ticker = QSharedPointer<QCPAxisTickerText>::create();
                axis->setTicker(ticker);
            }
            QVector<double> positions(labels.size());
            for (qsizetype i = 0; i < labels.size(); ++i) positions[i] = static_cast<double>(i);
            ticker->setTicks(positions, QVector<QString>(labels.begin(), labels.end()));
            // A thinned axis (empty labels between its words) keeps no tick marks: a long text's tick on
            // every token drew a solid dark band beside a small panel.
            const bool thinned = std::any_of(labels.begin(), labels.end(), [](const QString& l) { return l.isEmpty(); });
            axis->setTickLengthOut(thinned ? 0 : kTickLengthOut);
            ticker->setSubTickCount(0);
            axis->setTicks(true);
            axis->setTickLabels(true);
            break;
        }
        case TickMode::Positions: {
            auto ticker = qSharedPointerDynamicCast<QCPAxisTickerFixed>(axis->ticker());
            if (!ticker) {
                ticker = QSharedPointer<QCPAxisTickerFixed>::create();
                ticker->setTickStep(1.0);
                ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
                axis->setTicker(ticker);
            }
            ticker->setTickCount(std::clamp(position_ticks, 2, 10));
            axis->setTickLabelRotation(0);
            axis->setTicks(true);
            axis->setTickLabels(true);
            break;
        }
        case TickMode::None:
            axis->setTicks(false);
            axis->setTickLabels(false);
            break;
    }
}

int gridCells(int pixels) {
    int cells = kMaxGridCells / 8;
    while (cells < pixels && cells < kMaxGridCells) cells *= 2;
    return cells;
}

void fill(QCPColorMap* map, const Analysis& analysis, int head, bool logits, QRect window, int max_cells) {
    const HeadResult& result = analysis.results.heads.at(static_cast<std::size_t>(head));
    const MaskMatrix& allowed = analysis.results.allowed;
    const QRect all(0, 0, static_cast<int>(result.weights.cols()), static_cast<int>(result.weights.rows()));
    window = window.isEmpty() ? all : window.intersected(all);
    const bool from_pooled = analysis.pooled && window == all &&
                             std::max(window.width(), window.height()) > max_cells && kPooledCells % max_cells == 0;
    const int x0 = window.x(), y0 = window.y(), n_kv = window.width(), n_q = window.height();
    // The window's values (n_q, n_kv), read in place; a long input's logits, not kept, computed again for
    // the window alone where the pooled maps cannot give it (Analysis::logitsWindow: the tiles under it).
    using Values = Eigen::Ref<const Eigen::MatrixXf>;
    const bool computed = logits && !from_pooled && result.logits.size() == 0;
    const Eigen::MatrixXf logits_window = computed ? analysis.logitsWindow(head, y0, x0, n_q, n_kv) : Eigen::MatrixXf();
    const Values m = computed ? Values(logits_window)
                              : Values((logits && !from_pooled ? result.logits : result.weights).block(y0, x0, n_q, n_kv));
    const bool have_mask = allowed.rows() == result.weights.rows() && allowed.cols() == result.weights.cols();
    QCPColorMapData* data = map->data();
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (n_q <= max_cells && n_kv <= max_cells) {
        if (data->keySize() != n_kv || data->valueSize() != n_q) data->setSize(n_kv, n_q);
        // Cell centres on integer coordinates; a single cell spans [-0.5, 0.5].
        data->setRange(n_kv > 1 ? QCPRange(x0, x0 + n_kv - 1) : QCPRange(x0 - 0.5, x0 + 0.5),
                       n_q > 1 ? QCPRange(y0, y0 + n_q - 1) : QCPRange(y0 - 0.5, y0 + 0.5));
        for (int r = 0; r < n_q; ++r) {
            for (int c = 0; c < n_kv; ++c) {
                const double v = m(r, c);
                const bool masked = (have_mask && !allowed(y0 + r, x0 + c)) || !std::isfinite(v);
                data->setCell(c, r, masked ? nan : v);
            }
        }
        return;
    }
    // (cells_q, cells_kv): block i of a side of `size` tokens covers [i * size / cells, (i + 1) * size / cells).
    const int cells_q = std::min(n_q, max_cells), cells_kv = std::min(n_kv, max_cells);
    const Pool pool = logits ? Pool::Extreme : Pool::Max;
    // From the pooled maps (their masked cells NaN, left out), as they are where they have the cells
    // wanted: pooled on the analysis' worker, not here.
    // Fewer cells than either has: pooled again from the smaller whose blocks nest in the cells' (a side
    // it did not pool, fewer tokens than its cells, is the map's own, so either gives the same).
    const auto pooledAt = [&](const std::vector<Eigen::MatrixXf>& fine, const std::vector<Eigen::MatrixXf>& coarse) {
        const std::size_t h = std::size_t(head);
        for (const std::vector<Eigen::MatrixXf>* maps : {&coarse, &fine})
            if (h < maps->size() && (*maps)[h].rows() == cells_q && (*maps)[h].cols() == cells_kv) return (*maps)[h];
        const bool nests = h < coarse.size() && coarse[h].rows() % cells_q == 0 && coarse[h].cols() % cells_kv == 0;
        return downsample(nests ? coarse[h] : fine.at(h), cells_q, cells_kv, pool);
    };
    const Eigen::MatrixXf small =
        !from_pooled ? downsample(m, cells_q, cells_kv, pool, have_mask ? MaskMatrix(allowed.block(y0, x0, n_q, n_kv)) : MaskMatrix())
        : logits     ? pooledAt(analysis.pooled->logits, analysis.pooled->coarse_logits)
                     : pooledAt(analysis.pooled->weights, analysis.pooled->coarse_weights);
    if (data->keySize() != cells_kv || data->valueSize() != cells_q) data->setSize(cells_kv, cells_q);
    // Evenly spaced cells of size/cells tokens whose edges are the window's: [x0 - 0.5, x0 + n_kv - 0.5].
    const auto centres = [](int first, int size, int cells) {
        const double step = double(size) / cells;
        return cells > 1 ? QCPRange(first - 0.5 + step / 2, first - 0.5 + size - step / 2) : QCPRange(first - 0.5, first + size - 0.5);
    };
    data->setRange(centres(x0, n_kv, cells_kv), centres(y0, n_q, cells_q));
    for (int r = 0; r < cells_q; ++r)
        for (int c = 0; c < cells_kv; ++c) data->setCell(c, r, small(r, c));  // NaN: every cell of the block masked
}

QCPRange dataRange(const Analysis& analysis, int head, bool logits, bool shared) {
    // Shared weights run from 0 to the largest weight of any head (not to 1): near-uniform
    // attention would otherwise be one dark colour.
    const auto& heads = analysis.results.heads;
    const MaskMatrix& allowed = analysis.results.allowed;
    double extreme = 0;
    const int first = head < 0 ? 0 : head;
    const int last = head < 0 ? static_cast<int>(heads.size()) : head + 1;
    const MapExtremes* known = analysis.extremes.get();
    if (known && known->weights.size() != heads.size()) known = nullptr;
    for (int h = first; h < last; ++h) {
        // Computed with the analysis, on its worker: the same numbers as the scans below.
        if (known) {
            extreme = std::max(extreme, (logits ? known->logits : known->weights)[std::size_t(h)]);
            continue;
        }
        // A long input's pooled maps hold every map's largest weight and largest |logit| (masked: NaN).
        if (analysis.pooled) {
            const Eigen::MatrixXf& p = (logits ? analysis.pooled->logits : analysis.pooled->weights)[std::size_t(h)];
            extreme = std::max(extreme, largestMagnitude(p));
            continue;
        }
        const std::shared_ptr<const Eigen::MatrixXf> logits_map = logits ? analysis.headLogits(h) : nullptr;
        const Eigen::MatrixXf& m = logits ? *logits_map : heads[static_cast<std::size_t>(h)].weights;
        extreme = std::max(extreme, largestMagnitude(m, allowed));
    }
    if (!(extreme > 0)) return logits ? symmetricRange(extreme) : QCPRange(0, 1);
    if (shared) {
        // A shared colour bar moves in round steps, so a dragged slider does not make it
        // twitch, and most updates redraw only the cells (the fast path of HeadGridView).
        if (logits) return symmetricRange(niceCeiling(extreme));
        return QCPRange(0, std::min(1.0, std::ceil(extreme / kWeightStep - 1e-9) * kWeightStep));
    }
    return logits ? symmetricRange(extreme) : QCPRange(0, extreme);
}

double niceCeiling(double x) {
    if (!(x > 0) || !std::isfinite(x)) return x;
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
        if (step * decade >= x * (1 - 1e-12)) return step * decade;
    return 10 * decade;
}

QCPColorGradient gradient(bool logits) { return logits ? redBlueGradient() : viridisGradient(); }

bool anyMasked(const Analysis& analysis) {
    const MaskMatrix& allowed = analysis.results.allowed;
    return allowed.size() > 0 && !allowed.all();
}

bool cellAt(const QCPAxisRect* rect, const QPointF& pos, int n_q, int n_kv, int* row, int* col) {
    if (!rect || !rect->rect().contains(pos.toPoint())) return false;
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
    const double y = rect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
    const int c = static_cast<int>(std::floor(x + 0.5));
    const int r = static_cast<int>(std::floor(y + 0.5));
    if (c < 0 || c >= n_kv || r < 0 || r >= n_q) return false;
    if (row) *row = r;
    if (col) *col = c;
    return true;
}

QList<int> fullyMaskedRows(const Analysis& analysis) {
    QList<int> rows;
    const MaskMatrix& allowed = analysis.results.allowed;
    for (Eigen::Index r = 0; r < allowed.rows(); ++r)
        if (allowed.cols() > 0 && !allowed.row(r).any()) rows << static_cast<int>(r);
    return rows;
}

QCPItemRect* hatchRow(QCustomPlot* plot, QCPAxisRect* rect, int row, int n_kv) {
    auto* mark = new QCPItemRect(plot);
    mark->setClipAxisRect(rect);
    for (QCPItemPosition* p : {mark->topLeft, mark->bottomRight})
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    mark->topLeft->setCoords(-0.5, row - 0.5);
    mark->bottomRight->setCoords(n_kv - 0.5, row + 0.5);
    mark->setPen(QPen(QColor(120, 0, 0), 1.5));
    mark->setBrush(QBrush(QColor(120, 0, 0, 140), Qt::BDiagPattern));
    return mark;
}

QList<QCPAbstractItem*> sentenceBorder(QCustomPlot* plot, QCPAxisRect* rect, const Analysis& analysis) {
    QList<QCPAbstractItem*> lines;
    const int b = analysis.second_sentence, n_q = analysis.nQuery(), n_kv = analysis.nKeyValue();
    if (b <= 0 || b >= std::max(n_q, n_kv)) return lines;
    for (const bool across : {true, false}) {  // the row border, then the column border
        auto* line = new QCPItemLine(plot);
        line->setClipAxisRect(rect);
        for (QCPItemPosition* p : {line->start, line->end}) p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        if (across) {
            line->start->setCoords(-0.5, b - 0.5);
            line->end->setCoords(n_kv - 0.5, b - 0.5);
        } else {
            line->start->setCoords(b - 0.5, -0.5);
            line->end->setCoords(b - 0.5, n_q - 0.5);
        }
        line->setPen(QPen(QColor(255, 140, 0), 2));
        lines << line;
    }
    return lines;
}

}  // namespace headscope::ui::heatmap
