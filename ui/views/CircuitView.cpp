#include "CircuitView.h"

#include <QResizeEvent>
#include <QScrollArea>

#include <QFontMetrics>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>

#include "ColorMaps.h"
#include "ColourBarTicker.h"
#include "DeltaSlider.h"
#include "Heatmap.h"
#include "MatrixPage.h"
#include "RotaryDelta.h"
#include "Spectrum.h"
#include "TextFit.h"
#include "TypesetTitle.h"
#include "PanelText.h"

namespace headscope::ui {
namespace {

const char* kNames[] = {"W_i^Q", "W_i^K", "W_QK,i = W_i^Q (W_i^K)ᵀ", "W_i^V", "W_i^O", "W_OV,i = W_i^V W_i^O"};

}  // namespace

CircuitView::CircuitView(QWidget* parent, Rows rows)
    : AttentionView(FollowsAnalysis | FollowsHead | FollowsCircuits, parent), rows_(rows) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("circuit_plot"));
    plot_->setMinimumSize(320, 240);
    plot_->setInteractions(QCP::Interactions());
    plot_->installEventFilter(this);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* grid = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, grid);
    grid->setColumnSpacing(4);
    int grid_row = 0;
    for (int row = 0; row < 2; ++row) {
        const bool shown = rows_ == Rows::Both || (row == 0) == (rows_ == Rows::QK);
        auto* group = new QCPMarginGroup(plot_);
        for (int k = 0; k < 3; ++k) {
            const int m = 3 * row + k;
            scales_[m] = new QCPColorScale(plot_);
            scales_[m]->setBarWidth(8);
            scales_[m]->setGradient(redBlueGradient());
            ColourBarTicker::install(scales_[m]);
            panels_[m] = std::make_unique<MatrixPanel>(plot_, scales_[m]);
            panels_[m]->rect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
            scales_[m]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
            if (!shown) {
                panels_[m]->rect()->setVisible(false);
                scales_[m]->setVisible(false);
                continue;
            }
            grid->addElement(grid_row, 2 * k, panels_[m]->rect());
            grid->addElement(grid_row, 2 * k + 1, scales_[m]);
            // The middle column holds W_i^K (d_model x d_k, tall) over W_i^O (d_v x d_model, wide).
            grid->setColumnStretchFactor(2 * k, k == 2 ? 2.2 : (k == 1 && rows_ == Rows::Both ? 1.3 : 0.8));
            grid->setColumnStretchFactor(2 * k + 1, 0.01);
        }
        if (shown) ++grid_row;
    }
    // The wrapped title and the panels need more height than a small tab at large fonts has:
    // then the page scrolls instead of squeezing them (fitToRoom sets the height it needs).
    QScrollArea* scroll = page::scrolling(this, plot_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    delta_slider_ = new DeltaSlider(this);
    layout->addWidget(delta_slider_);
    layout->addWidget(scroll);
}

CircuitView::~CircuitView() = default;

QCPColorMap* CircuitView::colorMap(Matrix which) const { return panels_[which]->map(); }

bool CircuitView::productShown(Matrix which) const { return panels_[which]->map()->visible(); }

QString CircuitView::title() const { return title_->text(); }

void CircuitView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    const bool same = analysis_ && analysis && sameLayer(*analysis_, *analysis);
    analysis_ = std::move(analysis);
    if (!same) requestRefresh();
}

void CircuitView::setRotaryDelta(RotaryDelta* delta) {
    delta_ = delta;
    delta_slider_->setRotaryDelta(delta);
    connect(delta_, &RotaryDelta::resultReady, this, [this]() { requestRefresh(); });
    connect(delta_, &RotaryDelta::deltaChanged, this, [this]() { requestRefresh(); });
}

void CircuitView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void CircuitView::refresh() {
    plot_->clearItems();
    if (!analysis_ || analysis_->weights().heads == 0) return;
    const Weights& w = analysis_->weights();
    head_ = std::clamp(head_, 0, w.heads - 1);
    const int d = w.dModel(), d_k = w.d_k, d_v = w.d_v;
    const double s = options_.font_scale;
    const QFont panel_font = heatmap::font(kPanelLabelPt, s, true), tick_font = heatmap::font(kPanelTickPt, s);
    // The products must be this head's, formed from these weights (same shape at least).
    const bool formed = circuits_ && circuits_->head == head_ && circuits_->W_QK.rows() == d &&
                        circuits_->W_OV.rows() == d;
    // A rotary layer: W_QK,i(Delta) at the shared Delta, from RotaryDelta's worker.
    const bool rotary = delta_ && analysis_->rotary.enabled() && rows_ != Rows::OV;
    const std::shared_ptr<const RotaryDeltaResult> rotated = rotary ? delta_->resultFor(analysis_) : nullptr;
    const bool rotated_formed = rotated && rotated->circuits.head == head_ && rotated->circuits.W_QK.rows() == d;
    double extremes[6] = {};
    extremes[Query] = panels_[Query]->setMatrix(w.queryHead(head_));
    extremes[Key] = panels_[Key]->setMatrix(w.keyHead(head_));
    extremes[Value] = panels_[Value]->setMatrix(w.valueHead(head_));
    extremes[Output] = panels_[Output]->setMatrix(w.outputHead(head_));
    if (formed) {
        extremes[QK] = panels_[QK]->setMatrix(rotated_formed ? rotated->circuits.W_QK : circuits_->W_QK);
        extremes[OV] = panels_[OV]->setMatrix(circuits_->W_OV);
    }
    const QString rows[] = {"d_model", "d_model", "d_model", "d_model", "d_v", "d_model"};
    const QString cols[] = {"d_k", "d_k", "d_model", "d_v", "d_model", "d_model"};
    for (int m = 0; m < 6; ++m) {
        QString name = QString::fromUtf8(kNames[m]);
        if (m == QK && rotary)
            name = QStringLiteral("W_QK,i(Δ = %1) = W_i^Q R(Δ) (W_i^K)ᵀ").arg(delta_->delta());
        panels_[m]->setTitle(QStringList{name, name.section(QStringLiteral(" = "), 0, 0)}, panel_font);  // "W_QK,i"
        panels_[m]->setAxisNames(rows[m], cols[m], tick_font);
        panels_[m]->setRowLabels({}, tick_font);
        panels_[m]->map()->setDataRange(symmetricRange(heatmap::niceCeiling(extremes[m])));
        scales_[m]->axis()->setTickLabelFont(tick_font);
    }
    for (Matrix m : {QK, OV}) {
        panels_[m]->map()->setVisible(formed && (m == OV || !rotary || rotated_formed));
        scales_[m]->setVisible(formed && (rows_ == Rows::Both || (m == QK) == (rows_ == Rows::QK)));
        if (!formed) panels_[m]->setEmptyShape(d, d);
    }
    HeadSpectra spectra = analysis_->spectra[std::size_t(head_)];
    if (rotated) spectra.qk = rotated->circuits.qk[std::size_t(head_)];  // the rank at this Delta
    const QString qk_name = rotary ? QStringLiteral("W_QK,i(Δ = %1)").arg(delta_->delta()) : QStringLiteral("W_QK,i");
    QStringList lines, compact;  // compact: the ranks and counts without the formulas
    if (rows_ != Rows::OV)
        compact << QStringLiteral("Head %1: %6 has rank %2 ≤ %3 · %4 vs %5 parameters")
                       .arg(head_).arg(spectra.qk.rank).arg(rankBound(d_k, d, d)).arg(groupedCount(2LL * d * d_k), groupedCount(1LL * d * d), qk_name);
    if (rows_ != Rows::QK)
        compact << QStringLiteral("%1W_OV,i has rank %2 ≤ %3 · %4 vs %5 parameters")
                       .arg(rows_ == Rows::OV ? QStringLiteral("Head %1: ").arg(head_) : QString())
                       .arg(spectra.ov.rank).arg(rankBound(d_v, d, d)).arg(groupedCount(2LL * d * d_v), groupedCount(1LL * d * d));
    if (rows_ != Rows::OV)
        lines << QStringLiteral("Head %1: %7 is %2 × %2 but has rank %3 ≤ min(d_k, d_model) = %4\n"
                                "%5 parameters as two factors (2·d_model·d_k) vs %6 merged (d_model²)")
                     .arg(head_).arg(d).arg(spectra.qk.rank).arg(rankBound(d_k, d, d))
                     .arg(groupedCount(2LL * d * d_k), groupedCount(1LL * d * d), qk_name);
    if (rotary)
        lines << (rotated ? QStringLiteral("RoPE: the rotation R(Δ) sits between W_Q and W_Kᵀ, so W_QK depends on the "
                                           "distance Δ = j − i; R is orthogonal, the rank stays ≤ d_k at every Δ")
                          : QStringLiteral("RoPE: forming W_QK,i(Δ = %1)…").arg(delta_->delta()));
    if (rows_ != Rows::QK)
        lines << QStringLiteral("W_OV,i has rank %1 ≤ min(d_v, d_model) = %2; %3 parameters as factors vs %4 merged")
                     .arg(spectra.ov.rank).arg(rankBound(d_v, d, d)).arg(groupedCount(2LL * d * d_v), groupedCount(1LL * d * d));
    if (!formed)
        lines << (d > kMaxWindowCircuitDModel ? QStringLiteral("The %1 × %1 products are not drawn in the window; "
                                            "headscope-cli export writes them").arg(d)
                           : QStringLiteral("forming the products…"));
    if (!formed) compact << lines.back();
    title_text_ = lines.join(QLatin1Char('\n'));
    compact_title_ = compact.join(QLatin1Char('\n'));
    title_->setFont(heatmap::font(kPanelTitlePt, s, true));
    wrapTitle();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CircuitView::wrapTitle() {
    const int width = plot_->width() < 200 ? 1000 : plot_->width() - 12;
    // The sentences with their formulas while they wrap to a few lines; past that (a small
    // tab at large fonts) the ranks and counts alone, so the panels stay in sight.
    // The same facts in fewer words ("rank", "params", as the status line has them) where
    // that saves a line (lesson 1 at 2x: two lines, not three).
    const QString whole = fit::wrapLines(title_text_, title_->font(), width, false);
    QString compact = fit::wrapLines(compact_title_, title_->font(), width);
    QString tight = compact_title_;
    tight = fit::wrapLines(tight.replace(QStringLiteral(" has rank "), QStringLiteral(" rank "))
                               .replace(QStringLiteral(" parameters"), QStringLiteral(" params")), title_->font(), width);
    if (tight.count(QLatin1Char('\n')) < compact.count(QLatin1Char('\n'))) compact = tight;
    title_->setText(whole.count(QLatin1Char('\n')) + 1 <= kMaxTitleLines ? whole : compact);
    // The page: the wrapped title and about 9 lines of numbers per row of panels.
    const double line = QFontMetricsF(heatmap::font(kPanelTickPt, options_.font_scale)).height();
    const int rows = rows_ == Rows::Both ? 2 : 1;
    const double title = QFontMetricsF(title_->font()).lineSpacing() * (title_->text().count(QLatin1Char('\n')) + 1);
    const int needed = std::max(240, static_cast<int>(title + rows * 9 * line + 16));
    // Matrices to their shape (cells square), or the largest ratio the room allows, said on the
    // panel; labels and numbers thinned to the panels' pixels.
    QList<MatrixPanel*> shaped;
    for (const auto& panel : panels_) shaped << panel.get();
    page::fit(plot_, needed, shaped, 2.5 * line, line);
}

bool CircuitView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize && !title_text_.isEmpty()) {
        // Before QCustomPlot's own resize handling, which replots: the panels' shapes follow the
        // plot's size (a scroll area resizes it, not only this view).
        plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
        wrapTitle();
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
