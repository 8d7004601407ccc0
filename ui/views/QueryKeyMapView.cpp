#include "QueryKeyMapView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QSet>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "HeadColors.h"
#include "Heatmap.h"
#include "LabelPlacement.h"
#include "ResultStore.h"
#include "TextFit.h"
#include "TypesetAxis.h"
#include "TypesetLegendItem.h"
#include "TypesetTitle.h"

namespace headscope::ui {
namespace {

constexpr double kTitlePt = 12.5, kAxisPt = 10.5, kTickPt = 9.5, kLabelPt = 9.5, kNotePt = 11;
const QColor kQueryColor(0x00, 0x72, 0xB2), kKeyColor(0xD5, 0x5E, 0x00);

QCPCurve* scatter(QCustomPlot* plot, const QColor& colour, QCPScatterStyle::ScatterShape shape, double size) {
    auto* g = new QCPCurve(plot->xAxis, plot->yAxis);
    g->setLineStyle(QCPCurve::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, colour, colour.lighter(140), size));
    return g;
}

}  // namespace

QueryKeyMapView::QueryKeyMapView(QWidget* parent) : AttentionView(FollowsAnalysis | FollowsHead | FollowsCell, parent) {
    drawsResults({ResultStore::Kind::QueryKeyMap});
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("qk_map_plot"));
    // 1280 x 720 at 2x (640 x 360) has room for it, and 1024 x 768 at 2x for it beside the
    // controls (F6): the widest page sets the views' least width.
    plot_->setMinimumSize(280, 180);
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    TypesetAxis::adopt(plot_->axisRect());  // "W_i^Q" typeset, before anything is plotted
    plot_->plotLayout()->insertRow(0);
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    queries_ = scatter(plot_, kQueryColor, QCPScatterStyle::ssDisc, 9);
    keys_ = scatter(plot_, kKeyColor, QCPScatterStyle::ssTriangle, 10);
    ring_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    ring_->setLineStyle(QCPCurve::lsNone);
    ring_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0xC0, 0x1C, 0x28), 2.5), Qt::NoBrush, 20));
    queries_->setName(QStringLiteral("query q_i (● blue)"));
    keys_->setName(QStringLiteral("key k_j (▲ orange)"));
    plot_->legend->addItem(new TypesetLegendItem(plot_->legend, queries_));  // "q_i" typeset
    plot_->legend->addItem(new TypesetLegendItem(plot_->legend, keys_));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot_->xAxis->grid()->setZeroLinePen(QPen(QColor(180, 180, 180), 1));
    plot_->yAxis->grid()->setZeroLinePen(QPen(QColor(180, 180, 180), 1));
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
}

QStringList QueryKeyMapView::pointLabels() const {
    QStringList shown;
    for (const PointLabel& label : point_labels_)
        if (label.text->visible()) shown << label.text->text();
    return shown;
}

QList<QPair<QString, QPointF>> QueryKeyMapView::shownLabels() const {
    QList<QPair<QString, QPointF>> shown;
    for (const PointLabel& label : point_labels_)
        if (label.text->visible()) shown << qMakePair(label.text->text(), label.at);
    return shown;
}

QString QueryKeyMapView::leftOutText() const { return left_out_ && left_out_->visible() ? left_out_->text() : QString(); }
QString QueryKeyMapView::varianceText() const { return variance_variants_.value(0); }

void QueryKeyMapView::replotNow() {
    refresh();  // requests the map, which export and tests draw now:
    results().wait();
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    equalScale();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void QueryKeyMapView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (!isVisible()) {
        requestRefresh();  // scaled for the new size when shown
        return;
    }
    fitToRoom();
    equalScale();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void QueryKeyMapView::fitToRoom() {
    // Every text in the longest wording its room holds (a projector at 2x fonts included).
    if (!has_map_ || !variance_) return;
    const double width = plot_->viewport().width() - 8;
    QStringList lines;
    for (const QStringList& variants : title_lines_) {
        const QString line = fit::longestThatFits(variants, title_->font(), width);
        if (!line.isEmpty()) lines << line;
    }
    title_->setText(lines.join(QLatin1Char('\n')));
    // The legend in one row where it fits across, else one entry under the other: the band
    // it takes over the points stays low.
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    fit::layOut(plot_);
    if (plot_->legend->outerRect().width() > plot_->axisRect()->rect().width() - 8) {
        plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        fit::layOut(plot_);
    }
    const QRect r = plot_->axisRect()->rect();
    const auto pick = [](const QStringList& variants, const QFont& font, double room) {
        const QString text = fit::longestThatFits(variants, font, room);
        return text.isEmpty() ? variants.back() : text;
    };
    // The note sits top left, the legend top right: the note gets the room between them, and
    // when even its shortest wording does not fit, the x axis's label says it instead.
    const double legend_left = plot_->legend->visible() ? plot_->legend->outerRect().left() : r.right();
    variance_->setText(fit::longestThatFits(variance_variants_, variance_->font(), legend_left - r.left() - 16));
    QStringList x_labels = axis_labels_[0];
    if (variance_->text().isEmpty()) {
        const QString both = variance_variants_.back().section(QLatin1Char(' '), 0, 0);  // "63.7%"
        x_labels = QStringList{x_labels.front() + QStringLiteral(" · PC 1 + PC 2: ") + both,
                               x_labels.back() + QStringLiteral(" · both: ") + both, x_labels.back()};
    }
    plot_->xAxis->setLabel(pick(x_labels, plot_->xAxis->labelFont(), r.width()));
    plot_->yAxis->setLabel(pick(axis_labels_[1], plot_->yAxis->labelFont(), r.height()));
}

void QueryKeyMapView::equalScale() {
    if (!has_map_) return;
    left_out_->setVisible(false);
    frame(0);
    // Every point without a word: those a crowded map never labels, and those with no room.
    const int never = static_cast<int>(markers_.size() - point_labels_.size());
    const int left_out = placeLabels() + never;
    if (left_out == 0) return;
    // The note that says so goes along the bottom, below the points; measured with as many
    // digits as any count it may show.
    left_out_->setText(leftOutWords(static_cast<int>(markers_.size())));
    left_out_->setVisible(true);
    const QRectF note(left_out_->topLeft->pixelPosition(), left_out_->bottomRight->pixelPosition());
    frame(note.normalized().height() + 4);
    const int still = placeLabels() + never;
    left_out_->setText(leftOutWords(still));
    left_out_->setVisible(still > 0);
}

void QueryKeyMapView::refresh() {
    const int heads = analysis_ ? static_cast<int>(analysis_->results.heads.size()) : 0;
    head_ = std::clamp(head_, 0, std::max(0, heads - 1));
    const ResultStore::Result<QueryKeyMap> map = heads > 0 ? results().queryKeyMap(analysis_, head_) : std::nullopt;
    if (heads > 0 && !map) return;  // the last drawing stays until the map is there
    plot_->clearItems();
    variance_ = nullptr;
    left_out_ = nullptr;
    links_.clear();
    point_labels_.clear();
    markers_.clear();
    has_map_ = false;
    if (heads == 0 || !*map) {
        title_->setText(heads == 0 ? QStringLiteral("No analysis yet") : QStringLiteral("No map: out of memory"));
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const Analysis& a = *analysis_;
    map_ = **map;
    has_map_ = true;
    const double s = options_.font_scale;
    const int n_q = a.nQuery(), n_kv = a.nKeyValue();

    QVector<double> qx(n_q), qy(n_q), kx(n_kv), ky(n_kv);
    for (int i = 0; i < n_q; ++i) qx[i] = map_.query_points(i, 0), qy[i] = map_.query_points(i, 1);
    for (int j = 0; j < n_kv; ++j) kx[j] = map_.key_points(j, 0), ky[j] = map_.key_points(j, 1);
    queries_->setData(qx, qy);  // t = index: the order is kept
    keys_->setData(kx, ky);
    bool found = false;
    x_data_ = queries_->getKeyRange(found);
    x_data_.expand(keys_->getKeyRange(found));
    y_data_ = queries_->getValueRange(found);
    y_data_.expand(keys_->getValueRange(found));

    // query -> most attended key
    for (int i = 0; i < n_q; ++i) {
        const int j = map_.most_attended[std::size_t(i)];
        if (j < 0) continue;
        auto* line = new QCPItemLine(plot_);
        line->start->setCoords(qx[i], qy[i]);
        line->end->setCoords(kx[j], ky[j]);
        line->setPen(QPen(QColor(100, 100, 100, 150), 1.2 * std::max(1.0, s * 0.75)));
        line->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 8 * s, 10 * s));
        line->setLayer(QStringLiteral("grid"));
        links_ << qMakePair(i, j);
    }
    // Labels: every point, or for crowded maps only the selected and most-attended ones; placed
    // (and those without room left out) once the axes have their ranges, in equalScale().
    const bool all_labels = n_q + n_kv <= kMaxLabels;
    QSet<int> key_marks;
    for (int j : map_.most_attended) key_marks.insert(j);
    // Marker sizes (pixels across), drawn below and kept clear of by the words.
    const double query_marker = 8 * std::max(1.0, s * 0.8), key_marker = 10 * std::max(1.0, s * 0.8);
    const auto label = [&](double x, double y, const std::string& token, const QColor& colour, bool selected,
                           double marker) {
        auto* t = new QCPItemText(plot_);
        t->position->setCoords(x, y);
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        t->setPadding(QMargins(2, 1, 2, 1));
        t->setText(heatmap::drawable(QString::fromStdString(token)));
        t->setFont(heatmap::font(kLabelPt, s, selected));
        t->setColor(colour.darker(140));
        // A ringed point's label clears the ring.
        point_labels_.push_back({t, QPointF(x, y), selected, selected ? kRingPx : marker});
    };
    // In the order they claim room: the selected cell's words, the keys the arrows point to,
    // the queries, the other keys.
    const auto selected_query = [&](int i) { return i == cell_row_; };
    const auto selected_key = [&](int j) { return j == cell_col_; };
    for (int i = 0; i < n_q; ++i)
        if (selected_query(i)) label(qx[i], qy[i], map_.query_tokens[std::size_t(i)], kQueryColor, true, query_marker);
    for (int j = 0; j < n_kv; ++j)
        if (selected_key(j)) label(kx[j], ky[j], map_.key_tokens[std::size_t(j)], kKeyColor, true, key_marker);
    for (int j = 0; j < n_kv; ++j)
        if (!selected_key(j) && key_marks.contains(j))
            label(kx[j], ky[j], map_.key_tokens[std::size_t(j)], kKeyColor, false, key_marker);
    for (int i = 0; i < n_q; ++i)
        if (!selected_query(i) && (all_labels || i == n_q - 1))
            label(qx[i], qy[i], map_.query_tokens[std::size_t(i)], kQueryColor, false, query_marker);
    for (int j = 0; j < n_kv; ++j)
        if (!selected_key(j) && !key_marks.contains(j) && all_labels)
            label(kx[j], ky[j], map_.key_tokens[std::size_t(j)], kKeyColor, false, key_marker);
    for (int i = 0; i < n_q; ++i) markers_.push_back({QPointF(qx[i], qy[i]), selected_query(i) ? kRingPx : query_marker});
    for (int j = 0; j < n_kv; ++j) markers_.push_back({QPointF(kx[j], ky[j]), selected_key(j) ? kRingPx : key_marker});
    left_out_ = new QCPItemText(plot_);
    left_out_->position->setType(QCPItemPosition::ptAxisRectRatio);
    left_out_->position->setCoords(0.01, 0.99);
    left_out_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    left_out_->setFont(heatmap::font(kTickPt, s));
    left_out_->setColor(QColor(90, 90, 90));
    left_out_->setBrush(QColor(255, 255, 255, 220));
    left_out_->setPadding(QMargins(4, 2, 4, 2));
    // The selected cell, ringed.
    QVector<double> rx, ry;
    if (cell_row_ >= 0 && cell_row_ < n_q) rx << qx[cell_row_], ry << qy[cell_row_];
    if (cell_col_ >= 0 && cell_col_ < n_kv) rx << kx[cell_col_], ry << ky[cell_col_];
    ring_->setData(rx, ry);

    variance_ = new QCPItemText(plot_);
    variance_->position->setType(QCPItemPosition::ptAxisRectRatio);
    variance_->position->setCoords(0.01, 0.01);
    variance_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    const QString total = QString::number(100 * map_.explained_total, 'f', 1),
                  first = QString::number(100 * map_.explained(0), 'f', 1),
                  second = QString::number(100 * map_.explained(1), 'f', 1);
    variance_variants_ = {QStringLiteral("PC 1 and PC 2 explain %1% of the variance (%2% + %3%)").arg(total, first, second),
                          QStringLiteral("PC 1 + PC 2: %1% of the variance").arg(total),
                          QStringLiteral("%1% of the variance").arg(total)};
    variance_->setFont(heatmap::font(kNotePt, s, true));
    variance_->setBrush(QColor(255, 255, 255, 220));
    variance_->setPadding(QMargins(4, 2, 4, 2));

    const QString some = all_labels ? QString() : QStringLiteral("; labels: selected and most-attended only");
    title_lines_[0] = {QStringLiteral("Head %1: queries and keys as points (first two principal components of both "
                                      "together)").arg(head_),
                       QStringLiteral("Head %1: queries and keys, first two principal components").arg(head_),
                       QStringLiteral("Head %1: queries and keys").arg(head_)};
    if (analysis_->rotary.enabled()) for (QString& t : title_lines_[0]) t += QStringLiteral(" · RoPE: rotated q, k (what the softmax sees)");
    title_lines_[1] = {QStringLiteral("each vector × √(scale/T) so that q·k is the logit; arrow: each query → "
                                      "the key it attends to most%1").arg(some),
                       QStringLiteral("q·k is the logit; arrow: query → most-attended key"), QString()};
    axis_labels_[0] = {QStringLiteral("principal component 1 (%1% of variance)").arg(first), QStringLiteral("PC 1 (%1%)").arg(first)};
    axis_labels_[1] = {QStringLiteral("principal component 2 (%1%)").arg(second), QStringLiteral("PC 2 (%1%)").arg(second)};
    title_->setFont(heatmap::font(kTitlePt, s, true));
    title_->setTextColor(headColor(head_).darker(130));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setLabelFont(heatmap::font(kAxisPt, s));
        axis->setTickLabelFont(heatmap::font(kTickPt, s));
    }
    plot_->legend->setFont(heatmap::font(kTickPt, s));
    queries_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kQueryColor, kQueryColor, query_marker));
    keys_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(kKeyColor, 2), kKeyColor.lighter(150),
                                           key_marker));
    fitToRoom();
    equalScale();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool QueryKeyMapView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::MouseMove && has_map_) {
        const QPointF pos = static_cast<QMouseEvent*>(event)->position();
        double best = 12 * 12;
        QString text;
        const auto check = [&](const Eigen::MatrixXd& points, bool query) {
            for (int i = 0; i < points.rows(); ++i) {
                const double dx = plot_->xAxis->coordToPixel(points(i, 0)) - pos.x();
                const double dy = plot_->yAxis->coordToPixel(points(i, 1)) - pos.y();
                if (dx * dx + dy * dy < best) {
                    best = dx * dx + dy * dy;
                    const auto& tokens = query ? map_.query_tokens : map_.key_tokens;
                    text = QStringLiteral("head %1 · %2 %3 “%4” at (%5, %6)")
                               .arg(map_.head).arg(query ? QLatin1String("query") : QLatin1String("key")).arg(i)
                               .arg(QString::fromStdString(tokens[std::size_t(i)]))
                               .arg(points(i, 0), 0, 'g', 3).arg(points(i, 1), 0, 'g', 3);
                    if (query && map_.most_attended[std::size_t(i)] >= 0)
                        text += QStringLiteral(" → attends most to key %1").arg(map_.most_attended[std::size_t(i)]);
                }
            }
        };
        check(map_.query_points, true);
        check(map_.key_points, false);
        if (!text.isEmpty()) emit hovered(text);
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
