#include "ProjectionProductView.h"

#include <QResizeEvent>
#include <QVBoxLayout>
#include <algorithm>

#include "ColorMaps.h"
#include "ColourBarTicker.h"
#include "Heatmap.h"
#include "ResultStore.h"
#include "TextFit.h"
#include "TypesetTitle.h"
#include "PanelText.h"

namespace headscope::ui {
namespace {


QString number(double x) { return QString::number(x, 'g', 2); }

}  // namespace

ProjectionProductView::ProjectionProductView(QWidget* parent) : AttentionView(FollowsAnalysis | FollowsHead, parent) {
    drawsResults({ResultStore::Kind::ProjectionProduct});
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("projection_product_plot"));
    plot_->setMinimumSize(300, 140);
    plot_->setInteractions(QCP::Interactions());
    plot_->installEventFilter(this);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    grid_ = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, grid_);
    grid_->setColumnSpacing(4);
    auto* group = new QCPMarginGroup(plot_);
    for (int s = 0; s < 2; ++s) {
        scales_[s] = new QCPColorScale(plot_);
        scales_[s]->setBarWidth(8);
        scales_[s]->setGradient(redBlueGradient());
        ColourBarTicker::install(scales_[s]);
        scales_[s]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    }
    // X W_1 | its colour bar | (X W_1) W_2 | X (W_1 W_2) | their colour bar (one range: the same numbers)
    const int column[kCount] = {0, 2, 3};
    for (int m = 0; m < kCount; ++m) {
        panels_[m] = std::make_unique<MatrixPanel>(plot_, scales_[m == First ? 0 : 1]);
        panels_[m]->rect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        grid_->addElement(0, column[m], panels_[m]->rect());
    }
    grid_->addElement(0, 1, scales_[0]);
    grid_->addElement(0, 4, scales_[1]);
    grid_->setColumnStretchFactor(1, 0.01);
    grid_->setColumnStretchFactor(4, 0.01);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
}

ProjectionProductView::~ProjectionProductView() = default;

QCPColorMap* ProjectionProductView::colorMap(Matrix which) const { return panels_[which]->map(); }

QString ProjectionProductView::title() const { return title_->text(); }

void ProjectionProductView::replotNow() {
    refresh();  // requests the products, which export and tests draw now:
    results().wait();
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void ProjectionProductView::refresh() {
    plot_->clearItems();
    if (!analysis_ || analysis_->weights().heads == 0) return;
    const Analysis& a = *analysis_;
    const Weights& w = a.weights();
    head_ = std::clamp(head_, 0, w.heads - 1);
    const ResultStore::Result<ProjectionProduct> products = results().projectionProduct(analysis_, head_);
    if (!products) return;  // the last drawing stays until the products are there
    product_ = *products;
    const ProjectionProduct* p = product_.get();
    const double s = options_.font_scale;
    const QFont panel_font = heatmap::font(kPanelLabelPt, s, true), tick_font = heatmap::font(kPanelTickPt, s);
    title_->setFont(heatmap::font(kPanelTitlePt, s, true));
    if (!p) {
        title_text_ = QStringLiteral("The products of head %1 could not be formed (out of memory).").arg(head_);
        compact_title_.clear();
        fitToRoom();
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const Eigen::MatrixXf* matrices[kCount] = {&p->first, &p->twice, &p->merged};
    const QStringList titles[kCount] = {{QStringLiteral("X W_1 = X W_i^Q"), QStringLiteral("X W_1"), QStringLiteral("XW₁")},
                                        {QStringLiteral("(X W_1) W_2"), QStringLiteral("(XW₁)W₂")},
                                        {QStringLiteral("X (W_1 W_2) = X W_QK,i"), QStringLiteral("X (W_1 W_2)"),
                                         QStringLiteral("X(W₁W₂)")}};
    const QString rows = a.input.cross ? QStringLiteral("query tokens") : QStringLiteral("tokens");
    const QString cols[kCount] = {QStringLiteral("d_k"), QStringLiteral("d_model"), QStringLiteral("d_model")};
    const QStringList tokens = heatmap::queryLabels(a, 10, options_.token_positions);
    const bool words = tokens.size() <= 40;  // about one line of text per row, else row numbers
    double extremes[2] = {0, 0};
    for (int m = 0; m < kCount; ++m) {
        MatrixPanel& panel = *panels_[m];
        const double extreme = panel.setMatrix(*matrices[m]);
        extremes[m == First ? 0 : 1] = std::max(extremes[m == First ? 0 : 1], extreme);
        panel.setTitle(titles[m], panel_font);
        panel.setAxisNames(rows, cols[m], tick_font);
        panel.setRowLabels(m == First && words ? tokens : QStringList(), tick_font, options_.token_positions);
        panel.setTokenRows(true);  // the three share their token rows: each readable, not 3 px slivers
        panel.rect()->axis(QCPAxis::atLeft)->setLabel(m == First && words ? QString() : rows);
    }
    // The panels' widths follow their columns: d_k against d_model (at least a fifth, to stay readable).
    const double d = w.dModel(), d_k = w.d_k;
    grid_->setColumnStretchFactor(0, std::max(0.2, d_k / d));
    grid_->setColumnStretchFactor(2, 1.0);
    grid_->setColumnStretchFactor(3, 1.0);
    for (int k = 0; k < 2; ++k) {
        scales_[k]->setDataRange(symmetricRange(heatmap::niceCeiling(extremes[k])));
        scales_[k]->axis()->setTickLabelFont(tick_font);
    }
    // Wrapped between terms, never inside one (issue 36 item 14: "W_2 =" / "(W_i^K)ᵀ").
    title_text_ = QStringLiteral("Head %1: %2 with %3, %4\nLargest difference %5 (entries up to %6): float rounding, "
                                 "below its bound %7")
                      .arg(head_)
                      .arg(fit::together(QStringLiteral("(X W_1) W_2 = X (W_1 W_2)")),
                           fit::together(QStringLiteral("W_1 = W_i^Q (%1 × %2)").arg(w.dModel()).arg(w.d_k)),
                           fit::together(QStringLiteral("W_2 = (W_i^K)ᵀ (%1 × %2)").arg(w.d_k).arg(w.dModel())),
                           number(p->max_difference), number(p->max_abs),
                           QStringLiteral("2 (d_model + d_k) 2⁻²⁴ max(|X| |W_1| |W_2|) = ") + number(p->rounding_bound));
    compact_title_ = QStringLiteral("Head %1: (X W_1) W_2 − X (W_1 W_2) ≤ %2 (entries to %3; rounding bound %4)")
                         .arg(head_).arg(number(p->max_difference), number(p->max_abs), number(p->rounding_bound));
    fitToRoom();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ProjectionProductView::fitToRoom() {
    if (title_text_.isEmpty()) return;
    const int width = plot_->width() < 200 ? 1000 : plot_->width() - 12;
    // The sentences while they wrap to a few lines; past that (a narrow tab, large fonts) the numbers alone.
    const QString whole = fit::wrapLines(title_text_, title_->font(), width, false);
    title_->setText(whole.count(QLatin1Char('\n')) < 4 || compact_title_.isEmpty()
                        ? whole : fit::wrapLines(compact_title_, title_->font(), width, false));
    // Matrices to their shape (cells square), or the largest ratio the room allows, said on the panel.
    const double tick_line = QFontMetricsF(heatmap::font(kPanelTickPt, options_.font_scale)).height();
    QList<MatrixPanel*> shaped;
    for (const auto& panel : panels_) shaped << panel.get();
    MatrixPanel::layOutToShape(plot_, shaped, 2.5 * tick_line, tick_line);  // the bars' numbers follow (ColourBarTicker)
}

bool ProjectionProductView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize && !title_text_.isEmpty()) {
        // Before QCustomPlot's own resize handling, which replots: the panels' shapes follow the
        // plot's size (a scroll area resizes it, not only this view).
        plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
        fitToRoom();
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
