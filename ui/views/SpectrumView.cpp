#include "SpectrumView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "DeltaSlider.h"
#include "Heatmap.h"
#include "HeadColors.h"
#include "RotaryDelta.h"
#include "Spectrum.h"
#include "SpectrumAxes.h"
#include "SpectrumGraph.h"
#include "SpectrumViewStyle.h"
#include "TextFit.h"
#include "TypesetAxis.h"
#include "TypesetItemText.h"
#include "TypesetTitle.h"

namespace headscope::ui {

SpectrumView::SpectrumView(QWidget* parent, Panels panels) : QWidget(parent), panels_(panels) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("spectrum_plot"));
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    plot_->setMinimumSize(kMinimumWidth, kMinimumHeight);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->plotLayout()->clear();  // drops the default axis rect and its legend
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    title_->setMargins(QMargins(0, 4, 0, 2));
    plot_->plotLayout()->addElement(0, 0, title_);
    panel_grid_ = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, panel_grid_);
    panel_grid_->setColumnSpacing(12);
    panel_grid_->setRowSpacing(6);
    auto* group = new QCPMarginGroup(plot_);
    const char* names[] = {"W_QK,i = W_i^Q (W_i^K)ᵀ", "W_OV,i = W_i^V W_i^O"};
    int column = 0;
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        rects_[p] = new QCPAxisRect(plot_, true);
        TypesetAxis::adopt(rects_[p]);  // "W_QK,i" typeset
        styleSpectrumAxes(rects_[p]);
        rects_[p]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        rects_[p]->axis(QCPAxis::atTop)->setLabel(QString::fromUtf8(names[p]));
        const bool shown = panels_ == Panels::Both || (p == spectrum_style::kQK) == (panels_ == Panels::QK);
        if (shown) panel_grid_->addElement(0, column++, rects_[p]);
        else rects_[p]->setVisible(false);
    }
    arrangement_ = panels_ == Panels::OV ? Arrangement::QKOnly : Arrangement::SideBySide;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    delta_slider_ = new DeltaSlider(this);
    layout->addWidget(delta_slider_);
    layout->addWidget(plot_);
    applyFonts();
}

QCPGraph* SpectrumView::qkGraph(int head) const {
    return head >= 0 && head < graphs_[spectrum_style::kQK].size() ? graphs_[spectrum_style::kQK][head] : nullptr;
}

QCPGraph* SpectrumView::ovGraph(int head) const {
    return head >= 0 && head < graphs_[spectrum_style::kOV].size() ? graphs_[spectrum_style::kOV][head] : nullptr;
}

Eigen::VectorXd SpectrumView::values(bool qk, int head) const {
    if (!analysis_ || head < 0 || head >= static_cast<int>(analysis_->spectra.size())) return {};
    const HeadSpectra& s = analysis_->spectra[static_cast<std::size_t>(head)];
    const int d = analysis_->weights().dModel();
    return allSingularValues(qk ? qkSpectrum(head) : s.ov, d, d);
}

const Spectrum& SpectrumView::qkSpectrum(int head) const {
    if (rotated_ && head >= 0 && head < static_cast<int>(rotated_->circuits.qk.size()))
        return rotated_->circuits.qk[std::size_t(head)];
    return analysis_->spectra[std::size_t(head)].qk;
}

QString SpectrumView::deltaText() const {
    return rotated_ ? QStringLiteral("Δ = %1").arg(rotated_->circuits.delta) : QString();
}

void SpectrumView::setRotaryDelta(RotaryDelta* delta) {
    delta_ = delta;
    delta_slider_->setRotaryDelta(delta);
    const auto take = [this]() {
        auto now = delta_->resultFor(analysis_);
        if (now == rotated_) return;
        rotated_ = std::move(now);
        refresh();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    };
    connect(delta_, &RotaryDelta::resultReady, this, take);
    connect(delta_, &RotaryDelta::deltaChanged, this, take);
}

QString SpectrumView::zeroText(bool qk) const { return zero_text_[qk ? spectrum_style::kQK : spectrum_style::kOV]; }

void SpectrumView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    // Same weights and tolerance: the same spectra are on screen already.
    const bool unchanged = analysis_ && analysis && sameLayer(*analysis_, *analysis) &&
                           analysis_->config.rank_rtol == analysis->config.rank_rtol;
    analysis_ = std::move(analysis);
    if (unchanged) return;
    rotated_ = delta_ ? delta_->resultFor(analysis_) : nullptr;
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void SpectrumView::setOptions(const ViewOptions& options) {
    options_ = options;
    applyFonts();
    refresh();  // the notes are items with their own fonts
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void SpectrumView::setHead(int head) {
    if (head == head_) return;
    head_ = head;
    refresh();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void SpectrumView::setNarrowAllowed(bool narrow) {
    plot_->setMinimumSize(narrow ? kNarrowMinimumWidth : kMinimumWidth, narrow ? kNarrowMinimumHeight : kMinimumHeight);
}

void SpectrumView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void SpectrumView::rebuild(int heads) {
    plot_->clearGraphs();
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        graphs_[p].clear();
        for (int h = 0; h < heads; ++h)
            graphs_[p].push_back(new SpectrumGraph(rects_[p]->axis(QCPAxis::atBottom), rects_[p]->axis(QCPAxis::atLeft)));
    }
}

void SpectrumView::refresh() {
    plot_->clearItems();
    const int heads = analysis_ ? static_cast<int>(analysis_->spectra.size()) : 0;
    if (heads != graphs_[spectrum_style::kQK].size()) rebuild(heads);
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) cliff_text_[p] = zero_note_[p] = FittedText{};
    if (!analysis_ || heads == 0) {
        title_->setText(QStringLiteral("No analysis yet"));
        return;
    }
    head_ = std::clamp(head_, 0, heads - 1);
    fillPanel(spectrum_style::kQK);
    fillPanel(spectrum_style::kOV);
    styleSelection();
    arrangePanels();
    fitTexts();
}

void SpectrumView::fillPanel(int panel) {
    const Analysis& a = *analysis_;
    const bool qk = panel == spectrum_style::kQK;
    QCPAxisRect* rect = rects_[panel];
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    const int d = a.weights().dModel();
    const int inner = qk ? a.weights().d_k : a.weights().d_v;
    const int bound = rankBound(inner, d, d);
    const int heads = static_cast<int>(graphs_[panel].size());

    // The log range covers every value above the tolerance (and the tolerance line).
    double lowest = HUGE_VAL, highest = 0, tolerance = 0;
    for (int h = 0; h < heads; ++h) {
        const Spectrum& s = qk ? qkSpectrum(h) : a.spectra[std::size_t(h)].ov;
        tolerance = std::max(tolerance, s.tolerance);
        for (Eigen::Index i = 0; i < s.singular_values.size(); ++i) {
            const double v = s.singular_values(i);
            if (v > s.tolerance && std::isfinite(v)) {
                lowest = std::min(lowest, v);
                highest = std::max(highest, v);
            }
        }
    }
    if (!(highest > 0)) lowest = highest = 1;
    // The range follows the data: the tolerance is drawn only when it is near the values (a
    // custom tolerance); NumPy's default sits ~15 decades down and is named in the zero note.
    const bool tolerance_shown = tolerance > 0 && tolerance >= lowest * 1e-3;
    if (tolerance_shown) lowest = std::min(lowest, tolerance);
    // At least two decades, so the log axis has ticks to read.
    const double floor = std::min(lowest / 2, highest / 100);
    const double band = floor / spectrum_style::kBandGap;
    band_y_[panel] = band;
    auto ticker = y->ticker().dynamicCast<BandLogTicker>();
    ticker->floor = floor;
    ticker->band = band;

    for (int h = 0; h < heads; ++h) {
        const Spectrum& s = qk ? qkSpectrum(h) : a.spectra[std::size_t(h)].ov;
        const Eigen::VectorXd all = allSingularValues(s, d, d);
        QVector<double> keys(all.size()), ys(all.size());
        for (Eigen::Index i = 0; i < all.size(); ++i) {
            keys[i] = double(i + 1);
            ys[i] = all(i) > s.tolerance ? all(i) : band;  // counts as zero: on the band
        }
        graphs_[panel][h]->setData(keys, ys, true);
        graphs_[panel][h]->setName(QStringLiteral("head %1").arg(h));
    }
    x->setRange(0.5, d + 0.5);
    y->setRange(band / spectrum_style::kBandHalf, highest * 3);

    const double s = options_.font_scale;
    // The "= 0" band: everything that counts as zero sits on its centre line.
    auto* strip = new QCPItemRect(plot_);
    strip->setClipAxisRect(rect);
    strip->setLayer(QStringLiteral("background"));
    for (QCPItemPosition* p : {strip->topLeft, strip->bottomRight}) {
        p->setAxes(x, y);
        p->setAxisRect(rect);
        p->setTypeX(QCPItemPosition::ptAxisRectRatio);
    }
    strip->topLeft->setCoords(0, band * spectrum_style::kBandHalf * 0.8);
    strip->bottomRight->setCoords(1, band / spectrum_style::kBandHalf);
    strip->setPen(Qt::NoPen);
    strip->setBrush(QColor(235, 235, 235));

    const Spectrum& selected = qk ? qkSpectrum(head_) : a.spectra[std::size_t(head_)].ov;
    const int zeros = zeroCount(selected, d, d);
    zero_text_[panel] = QStringLiteral("%1 of %2 singular values are 0").arg(zeros).arg(d);
    auto* zero_note = new TypesetItemText(plot_);
    zero_note->setClipAxisRect(rect);
    zero_note->position->setAxes(x, y);
    zero_note->position->setAxisRect(rect);
    zero_note->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    zero_note->position->setCoords(0.99, band * spectrum_style::kBandHalf * 0.8);
    zero_note->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    zero_note_[panel] = {{QStringLiteral("%1 of %2 are 0").arg(zeros).arg(d), QStringLiteral("%1 are 0").arg(zeros)},
                         zero_note};
    zero_note->setText(zero_note_[panel].variants.front());
    zero_note->setFont(heatmap::font(spectrum_style::kNotePt, s));
    zero_note->setColor(QColor(60, 60, 60));

    // The cliff: no head can have more than min(inner, d_model) non-zero values.
    auto* cliff = new QCPItemStraightLine(plot_);
    cliff->setClipAxisRect(rect);
    cliff->setPen(QPen(QColor(60, 60, 60), 1.4, Qt::DashLine));
    for (QCPItemPosition* p : {cliff->point1, cliff->point2}) p->setAxes(x, y);
    cliff->point1->setCoords(bound + 0.5, band);
    cliff->point2->setCoords(bound + 0.5, highest);
    auto* cliff_text = new TypesetItemText(plot_);
    cliff_text->setClipAxisRect(rect);
    cliff_text->position->setAxes(x, y);
    cliff_text->position->setAxisRect(rect);
    cliff_text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    const bool right_half = bound + 0.5 > 0.6 * (d + 0.5);
    cliff_text->position->setCoords(bound + 0.5, 0.02);
    cliff_text->setPositionAlignment((right_half ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    cliff_text->setPadding(QMargins(4, 1, 4, 1));
    cliff_text->setBrush(QColor(255, 255, 255, 230));
    cliff_text_[panel] = {{QStringLiteral("rank ≤ %2 = min(%1, d_model)").arg(qk ? "d_k" : "d_v").arg(bound),
                           QStringLiteral("rank ≤ %1").arg(bound), QStringLiteral("≤ %1").arg(bound)},
                          cliff_text};
    cliff_text->setText(cliff_text_[panel].variants.front());
    cliff_position_[panel] = (bound + 0.5) / (d + 0.5);
    cliff_on_left_[panel] = right_half;
    cliff_text->setFont(heatmap::font(spectrum_style::kNotePt, s));

    if (tolerance_shown) {
        auto* line = new QCPItemStraightLine(plot_);
        line->setClipAxisRect(rect);
        line->setPen(QPen(QColor(200, 40, 40), 1.1, Qt::DotLine));
        for (QCPItemPosition* p : {line->point1, line->point2}) p->setAxes(x, y);
        line->point1->setCoords(0, tolerance);
        line->point2->setCoords(1, tolerance);
        auto* text = new QCPItemText(plot_);
        text->setClipAxisRect(rect);
        text->position->setAxes(x, y);
        text->position->setAxisRect(rect);
        text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.99, tolerance);
        text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        text->setColor(QColor(170, 30, 30));
        text->setText(QStringLiteral("tolerance %1").arg(QString::number(tolerance, 'g', 2)));
        text->setFont(heatmap::font(spectrum_style::kNotePt - 1, s));
    }
}

void SpectrumView::styleSelection() {
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        const int d = analysis_ ? analysis_->weights().dModel() : 0;
        for (int h = 0; h < graphs_[p].size(); ++h) {
            QCPGraph* graph = graphs_[p][h];
            QColor color = headColor(h);
            const bool selected = h == head_;
            if (!selected) color.setAlpha(70);
            // Faint curves at width 1: drawn without the stroker, the cheap path for many heads.
            graph->setPen(QPen(color, selected ? 2.8 : 1.0));
            const double size = selected ? (d <= 96 ? 6 : 0) : (d <= 96 ? 3 : 0);
            graph->setScatterStyle(size > 0 ? QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, size)
                                            : QCPScatterStyle(QCPScatterStyle::ssNone));
            graph->setLayer(QStringLiteral("main"));
        }
        // The selected curve on top of the faint ones.
        if (head_ >= 0 && head_ < graphs_[p].size()) graphs_[p][head_]->setLayer(QStringLiteral("overlay"));
    }
}

void SpectrumView::arrangePanels() {
    if (panels_ != Panels::Both) return;
    // A readable panel: about 12 tick-label heights wide and 7 high (title, ticks and
    // labels take 4 of them).
    const double f = QFontMetricsF(heatmap::font(spectrum_style::kTickPt, options_.font_scale)).height();
    const QSize size = plot_->viewport().size();
    const double title = 2 * f, min_width = 12 * f, min_height = 7 * f;
    Arrangement wanted = Arrangement::QKOnly;
    if (size.width() >= 2 * min_width && size.height() >= min_height + title) wanted = Arrangement::SideBySide;
    else if (size.width() >= min_width && size.height() >= 2 * min_height + title) wanted = Arrangement::Stacked;
    if (wanted == arrangement_ && panel_grid_->elementCount() > 0 && panel_grid_->hasElement(0, 0)) return;
    arrangement_ = wanted;
    for (QCPAxisRect* rect : rects_) panel_grid_->take(rect);
    panel_grid_->simplify();
    panel_grid_->addElement(0, 0, rects_[spectrum_style::kQK]);
    if (wanted == Arrangement::SideBySide) panel_grid_->addElement(0, 1, rects_[spectrum_style::kOV]);
    if (wanted == Arrangement::Stacked) panel_grid_->addElement(1, 0, rects_[spectrum_style::kOV]);
    rects_[spectrum_style::kOV]->setVisible(wanted != Arrangement::QKOnly);
    emit arrangementChanged(wanted);
}

QString SpectrumView::hiddenPanelNote() const {
    return panels_ == Panels::Both && arrangement_ == Arrangement::QKOnly
               ? QStringLiteral("W_OV hidden: widen the dock or use smaller fonts")
               : QString();
}

}  // namespace headscope::ui
