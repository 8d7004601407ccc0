#include "RotaryView.h"

#include <QLabel>
#include <QResizeEvent>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>
#include <cmath>

#include "ColorMaps.h"
#include "ColourBarTicker.h"
#include "HeadNames.h"
#include "Heatmap.h"
#include "ResultStore.h"
#include "RotaryDelta.h"
#include "ScoreBreakdown.h"
#include "TextFit.h"
#include "TypesetText.h"
#include "TypesetTitle.h"

namespace headscope::ui {
namespace {

constexpr double kTitlePt = 12, kAxisPt = 10, kTickPt = 9;

QCustomPlot* makePlot(QWidget* parent, const char* name, QCPTextElement** title) {
    auto* plot = new QCustomPlot(parent);
    plot->setObjectName(QString::fromLatin1(name));
    plot->setInteractions(QCP::Interactions());
    plot->setMinimumSize(240, 150);
    *title = new TypesetTitle(plot, QString());
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, *title);
    return plot;
}

}  // namespace

RotaryView::RotaryView(QWidget* parent) : AttentionView(FollowsAnalysis | FollowsHead | FollowsCell, parent) {
    drawsResults({ResultKind::LogitCurve, ResultKind::RotaryDelta});
    // The note and plots scroll inside the view, so the tab never makes the window taller than
    // a small screen at a large font.
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    auto* content = new QWidget(scroll);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    note_ = new QLabel(content);
    note_->setObjectName(QStringLiteral("rotary_note"));
    note_->setWordWrap(true);
    note_->setMargin(12);
    curve_plot_ = makePlot(content, "logit_delta_plot", &curve_title_);
    curve_graph_ = curve_plot_->addGraph();
    curve_graph_->setPen(QPen(QColor(40, 90, 170), 2));
    cell_point_ = curve_plot_->addGraph();
    cell_point_->setLineStyle(QCPGraph::lsNone);
    cell_point_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(220, 110, 0), QColor(220, 110, 0), 11));
    curve_plot_->xAxis->setLabel(QStringLiteral("Δ = j − i (key position − query position)"));
    curve_plot_->yAxis->setLabel(QStringLiteral("logit"));

    shares_plot_ = makePlot(content, "pair_shares_plot", &shares_title_);
    shares_map_ = new QCPColorMap(shares_plot_->xAxis, shares_plot_->yAxis);
    shares_scale_ = new QCPColorScale(shares_plot_);
    shares_scale_->setBarWidth(10);
    ColourBarTicker::install(shares_scale_);
    shares_scale_->axis()->setLabel(QStringLiteral("share"));
    shares_plot_->plotLayout()->addElement(1, 1, shares_scale_);
    shares_map_->setColorScale(shares_scale_);
    shares_map_->setGradient(magmaGradient().inverted());
    shares_map_->setInterpolate(false);
    shares_plot_->yAxis->setRangeReversed(true);  // head 0 on top, as in the grid

    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(note_);
    layout->addWidget(curve_plot_, 1);
    layout->addWidget(shares_plot_, 1);
    applyFonts();
}

void RotaryView::setOptions(const ViewOptions& options) {
    options_ = options;
    applyFonts();
    AttentionView::setOptions(options);
}

void RotaryView::setRotaryDelta(RotaryDelta* delta) {
    delta_ = delta;
    connect(delta_, &RotaryDelta::resultReady, this, [this]() { requestRefresh(); });
}

bool RotaryView::curveBusy() { return results().busy(); }

void RotaryView::replotNow() {
    refresh();  // requests the curve, which export and tests draw now:
    results().wait();
    refresh();
    curve_plot_->replot(QCustomPlot::rpImmediateRefresh);
    shares_plot_->replot(QCustomPlot::rpImmediateRefresh);
}

QString RotaryView::curveTitle() const { return curve_text_; }
QString RotaryView::sharesTitle() const { return shares_text_; }

void RotaryView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (curve_plot_->isVisible()) {
        fitTexts();
        curve_plot_->replot(QCustomPlot::rpQueuedReplot);
        shares_plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void RotaryView::fitTexts() {
    const double room = std::max(200.0, 0.85 * width() - 24);  // bold titles measure a little narrow
    curve_title_->setText(fit::wrapLines(curve_text_, curve_title_->font(), room, false));
    shares_title_->setText(fit::wrapLines(shares_text_, shares_title_->font(), room, false));
    shares_plot_->xAxis->setLabel(fit::longestThatFits(x_labels_, shares_plot_->xAxis->labelFont(), room));
    fit::layOut(shares_plot_);
    // One pair label per ~4 tick-label widths of room, so the labels never touch.
    const double rect = std::max(40, shares_plot_->axisRect()->width());
    const double label = QFontMetricsF(shares_plot_->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("θ=0.001")) + 12;
    const int columns = static_cast<int>(pair_labels_.size());
    const int step = std::max(1, static_cast<int>(std::ceil(columns * label / rect)));
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int p = 0; p < columns; p += step) ticks->addTick(p, pair_labels_[p]);
    shares_plot_->xAxis->setTicker(ticks);
}
QString RotaryView::note() const {
    if (!note_->isVisibleTo(this)) return {};
    return note_->accessibleName().isEmpty() ? note_->text() : note_->accessibleName();  // the notation as written
}

void RotaryView::applyFonts() {
    const double s = options_.font_scale;
    note_->setFont(heatmap::font(kTitlePt, s));
    for (QCustomPlot* plot : {curve_plot_, shares_plot_}) {
        for (QCPAxis* axis : plot->axisRect()->axes()) {
            axis->setTickLabelFont(heatmap::font(kTickPt, s));
            axis->setLabelFont(heatmap::font(kAxisPt, s));
        }
    }
    shares_scale_->axis()->setTickLabelFont(heatmap::font(kTickPt, s));
    shares_scale_->axis()->setLabelFont(heatmap::font(kAxisPt, s));
    curve_title_->setFont(heatmap::font(kTitlePt, s, true));
    shares_title_->setFont(heatmap::font(kTitlePt, s, true));
}

void RotaryView::refresh() {
    const bool rotary = analysis_ && analysis_->rotary.enabled() && analysis_->weights().heads > 0 &&
                        analysis_->nQuery() > 0 && analysis_->nKeyValue() > 0;
    note_->setVisible(!rotary);
    curve_plot_->setVisible(rotary);
    shares_plot_->setVisible(rotary);
    if (!rotary) {
        curve_ = {};
        const QString no_rotation =
            analysis_ && analysis_->no_rotation
                ? tr("This layer does not rotate q and k (NoPE): the model's other layers do, this one sees no "
                     "position at all. Its score x_i W_QK,i x_jᵀ uses one W_QK,i for every pair of tokens, so the logit "
                     "does not depend on the distance Δ = j − i; only the causal mask tells it what came first.")
                : tr("This layer has no rotary positions: its score x_i W_QK,i x_jᵀ uses one W_QK,i "
                     "for every pair of tokens, so the logit does not depend on the distance "
                     "Δ = j − i (positions, if any, were added to the embeddings before the layer).");
        typeset::setLabelText(note_, analysis_ ? no_rotation : tr("No analysis yet"));  // the notation typeset
        return;
    }
    head_ = std::clamp(head_, 0, analysis_->weights().heads - 1);
    int row = cell_row_, col = cell_col_;
    if (row < 0 || col < 0 || row >= analysis_->nQuery() || col >= analysis_->nKeyValue())
        std::tie(row, col) = defaultCell(*analysis_, head_);
    // The last curve stays drawn until this one is there.
    if (const ResultStore::Result<CellLogitCurve> curve = results().logitCurve(analysis_, head_, row, col))
        refreshCurve(curve->get());
    refreshShares();
    fitTexts();
    curve_plot_->replot(QCustomPlot::rpQueuedReplot);
    shares_plot_->replot(QCustomPlot::rpQueuedReplot);
}

void RotaryView::refreshCurve(const CellLogitCurve* computed) {
    const Analysis& a = *analysis_;
    const Weights& w = a.weights();
    if (!computed) {  // it threw: out of memory or dimensions that do not fit
        curve_ = {};
        curve_graph_->data()->clear();
        cell_point_->data()->clear();
        curve_text_ = tr("%1: the logit against Δ could not be computed").arg(headTitle(head_, w.heads, w.kv_heads));
        return;
    }
    const int row = computed->row, col = computed->col;
    shown_row_ = row;
    shown_col_ = col;
    cell_delta_ = computed->cell_delta;
    curve_ = computed->curve;
    engine_logit_ = computed->engine_logit;

    QVector<double> xs, ys;
    for (std::size_t i = 0; i < curve_.deltas.size(); ++i) {
        xs << curve_.deltas[i];
        ys << curve_.logits[i];
    }
    curve_graph_->setData(xs, ys, true);
    const double at = curve_.logits[std::size_t(cell_delta_ - curve_.deltas.front())];
    cell_point_->setData(QVector<double>{double(cell_delta_)}, QVector<double>{at});
    curve_graph_->setScatterStyle(xs.size() <= 80 ? QCPScatterStyle(QCPScatterStyle::ssDisc, 4) : QCPScatterStyle());
    curve_plot_->rescaleAxes();
    const QCPRange y = curve_plot_->yAxis->range();
    curve_plot_->yAxis->setRange(y.lower - 0.08 * y.size() - 1e-6, y.upper + 0.08 * y.size() + 1e-6);
    curve_plot_->xAxis->setRange(xs.front() - 0.5, xs.back() + 0.5);
    const QString token_q = QString::fromStdString(a.input.query.tokens.at(std::size_t(row)));
    const QString token_k = QString::fromStdString(a.input.key_value.tokens.at(std::size_t(col)));
    const QString masked = std::isfinite(engine_logit_) ? tr("engine's logit %1").arg(engine_logit_, 0, 'g', 4)
                                                        : tr("masked: the softmax never sees it");
    curve_text_ = (tr("%1: logit of (query %2 “%3”, key %4 “%5”) against Δ with q_i, k_j fixed\n"
                             "● the cell's own Δ = %6: %7 (%8)")
                              .arg(headTitle(head_, w.heads, w.kv_heads)).arg(row).arg(token_q).arg(col).arg(token_k)
                              .arg(cell_delta_).arg(at, 0, 'g', 4).arg(masked));
}

void RotaryView::refreshShares() {
    const Analysis& a = *analysis_;
    const Weights& w = a.weights();
    const int m = static_cast<int>(a.rotary.inverse_frequencies.size());
    const bool partial = 2 * m < w.d_k;
    const int columns = m + (partial ? 1 : 0);
    // The window's shared Delta's result, or (a view built alone) the store's at Delta 0: the
    // shares do not depend on Delta.
    std::shared_ptr<const RotaryDeltaResult> result;
    if (delta_)
        result = delta_->resultFor(analysis_);
    else if (const ResultStore::Result<RotaryDeltaResult> r = results().rotaryDelta(analysis_, head_, 0, 0))
        result = *r;
    const bool ready = result && static_cast<int>(result->shares.size()) == w.heads;
    shares_map_->data()->setSize(columns, w.heads);
    shares_map_->data()->setRange(QCPRange(0, columns - 1), QCPRange(0, w.heads - 1));
    for (int h = 0; h < w.heads; ++h)
        for (int p = 0; p < columns; ++p)
            shares_map_->data()->setCell(p, h, ready ? result->shares[std::size_t(h)][std::size_t(p < m ? p : m)] : 0.0);
    double top = 0;
    if (ready)
        for (const auto& row : result->shares) top = std::max(top, *std::max_element(row.begin(), row.end()));
    shares_map_->setDataRange(QCPRange(0, top > 0 ? top : 1));
    // x: every few pairs labelled with its theta_p; y: every head, with its key/value head.
    pair_labels_.clear();
    for (int p = 0; p < m; ++p)
        pair_labels_ << QStringLiteral("p%1\nθ=%2").arg(p).arg(a.rotary.inverse_frequencies(p), 0, 'g', 2);
    if (partial) pair_labels_ << QStringLiteral("rest\nθ=0");
    QSharedPointer<QCPAxisTickerText> y_ticks(new QCPAxisTickerText);
    const int head_step = std::max(1, w.heads / 16);
    for (int h = 0; h < w.heads; h += head_step) y_ticks->addTick(h, headTitle(h, w.heads, w.kv_heads));
    shares_plot_->yAxis->setTicker(y_ticks);
    shares_plot_->xAxis->setRange(-0.5, columns - 0.5);
    shares_plot_->yAxis->setRange(-0.5, w.heads - 0.5);
    x_labels_ = QStringList{tr("rotary pair p: high frequency (positional) ← → low frequency (semantic)%1")
                                .arg(partial ? tr(", then the unrotated dims") : QString()),
                            tr("pair p: high frequency (positional) → low (semantic)"), tr("pair p: high → low frequency")};
    shares_plot_->yAxis->setLabel(QString());
    shares_text_ = (ready ? tr("Where W_i^Q (W_i^K)ᵀ lives: share of ‖W_QK,i‖²_F in each frequency pair "
                                      "(each head's row sums to 1)")
                                 : tr("Frequency shares: computing…"));
}

}  // namespace headscope::ui
