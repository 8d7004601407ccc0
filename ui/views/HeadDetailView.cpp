#include "HeadDetailView.h"

#include "CellColorMap.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollArea>
#include <QTextDocument>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ColourBarTicker.h"
#include "Heatmap.h"
#include "TextFit.h"
#include "TypesetAxis.h"
#include "TypesetText.h"
#include "TypesetTitle.h"

namespace headscope::ui {
namespace {

constexpr int kShownSingularValues = 8;

QString number(double v) { return QString::number(v, 'g', 3); }

QString valueList(const Eigen::VectorXd& values, int count) {
    QStringList parts;
    const int n = static_cast<int>(values.size());
    for (int i = 0; i < std::min(n, count); ++i) parts << number(values(i));
    if (n > count) parts << QStringLiteral("…");
    return parts.join(QStringLiteral(", "));
}

const HeadSpectra* spectraOf(const Analysis& a, int head) {
    if (head < 0 || head >= static_cast<int>(a.spectra.size())) return nullptr;
    return &a.spectra[static_cast<std::size_t>(head)];
}

const Spectrum* logitSpectrumOf(const Analysis& a, int head) {
    if (head < 0 || head >= static_cast<int>(a.logits.size())) return nullptr;
    return &a.logits[static_cast<std::size_t>(head)];
}

// The side panel: its notation typeset (shown, issue 21) or as written (its plain-text copy).
QString infoHtml(const Analysis& a, int head, bool shown) {
    const auto cell = [shown](const QString& text) { return shown ? typeset::lineHtml(text) : text.toHtmlEscaped(); };
    const int d_model = a.config.d_model, d_k = a.config.headDimK(), d_v = a.config.headDimV();
    QString html = QStringLiteral("<h3>head %1 of %2</h3><table cellspacing='3'>").arg(head).arg(a.config.heads);
    auto row = [&html, &cell](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(cell(name), cell(value));
    };
    row(QStringLiteral("d_model"), QString::number(d_model));
    row(QStringLiteral("d_k, d_v"), QStringLiteral("%1, %2").arg(d_k).arg(d_v));
    if (a.config.kvHeads() != a.config.heads)
        row(QStringLiteral("key/value head"), QString::number(a.weights().kvHeadOf(head)));
    if (const HeadSpectra* s = spectraOf(a, head)) {
        row(QStringLiteral("rank W_QK"), QStringLiteral("%1 (≤ d_k = %2, of %3×%3)").arg(s->qk.rank).arg(d_k).arg(d_model));
        row(QStringLiteral("σ(W_QK)"), valueList(s->qk.singular_values, kShownSingularValues));
        row(QStringLiteral("rank tolerance"), number(s->qk.tolerance));
        row(QStringLiteral("rank W_OV"), QStringLiteral("%1 (≤ d_v = %2)").arg(s->ov.rank).arg(d_v));
        row(QStringLiteral("σ(W_OV)"), valueList(s->ov.singular_values, kShownSingularValues));
    }
    if (const Spectrum* l = logitSpectrumOf(a, head)) {
        row(QStringLiteral("rank of logits"),
            QStringLiteral("%1 (≤ min(n_q, n_kv, d_k) = %2)")
                .arg(l->rank)
                .arg(std::min({a.nQuery(), a.nKeyValue(), d_k})));
    }
    html += QStringLiteral("</table>");
    html += QStringLiteral("<p>%1</p>")
                .arg(cell(QStringLiteral("W_QK = W_i^Q (W_i^K)^T is %1×%1 but a product through d_k = %2 "
                                                      "dimensions, so at most %2 of its singular values are non-zero.")
                                           .arg(d_model)
                                           .arg(d_k)));
    return html;
}

}  // namespace

HeadDetailView::HeadDetailView(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setMouseTracking(true);
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    plot_->setMinimumSize(160, 140);  // the compact layout's; HeadsTab holds the full one's
    plot_->plotLayout()->clear();

    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    subtitle_ = new TypesetTitle(plot_, QString());
    subtitle_->setTextColor(QColor(70, 70, 70));
    title_->setMargins(QMargins(0, 6, 0, 0));
    subtitle_->setMargins(QMargins(0, 2, 0, 4));
    plot_->plotLayout()->addElement(0, 0, title_);
    plot_->plotLayout()->addElement(1, 0, subtitle_);
    body_ = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(2, 0, body_);
    rect_ = new QCPAxisRect(plot_, true);
    heatmap::styleAxes(rect_);
    rect_->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("key"));
    rect_->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("query"));
    body_->addElement(0, 0, rect_);
    scale_ = new QCPColorScale(plot_);
    TypesetAxis::adopt(scale_);  // "logit / √d_k" typeset
    scale_->setType(QCPAxis::atRight);
    scale_->setRangeDrag(false);
    scale_->setRangeZoom(false);
    ColourBarTicker::install(scale_);
    body_->addElement(0, 1, scale_);
    body_->setColumnSpacing(12);
    margin_group_ = new QCPMarginGroup(plot_);
    rect_->setMarginGroup(QCP::msTop | QCP::msBottom, margin_group_);
    scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margin_group_);
    map_ = new CellColorMap(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    map_->setColorScale(scale_);
    map_->setGradient(heatmap::gradient(false));
    scale_->setGradient(heatmap::gradient(false));

    info_ = new QLabel;
    info_->setTextFormat(Qt::RichText);
    info_->setWordWrap(true);
    info_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    info_->setContentsMargins(4, 0, 4, 0);
    // Large fonts on a small screen: the panel scrolls down rather than losing its last lines.
    info_scroll_ = new QScrollArea(this);
    info_scroll_->setObjectName(QStringLiteral("head_info"));
    info_scroll_->setWidget(info_);
    info_scroll_->setWidgetResizable(true);
    info_scroll_->setFrameShape(QFrame::NoFrame);
    info_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(plot_, 1);
    layout->addWidget(info_scroll_, 0);

    connect(plot_, &QCustomPlot::mouseMove, this, &HeadDetailView::onMouseMove);
    // Zoom and pan (HeadDetailZoom.cpp).
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    rect_->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    rect_->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    for (QCPAxis* axis : {rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft)})
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &HeadDetailView::onAxisRange);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setTokenWindow(QRect()); });
    applyFonts();
}

void HeadDetailView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    const auto tokens = [](const Analysis* a) { return a ? std::pair(a->nQuery(), a->nKeyValue()) : std::pair(0, 0); };
    const bool new_tokens = tokens(analysis_.get()) != tokens(analysis.get());
    analysis_ = std::move(analysis);
    if (new_tokens) emit tokenCountChanged();
    refresh();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeadDetailView::setHead(int head) {
    head_ = std::max(0, head);
    refresh();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeadDetailView::setOptions(const ViewOptions& options) {
    const bool logits_changed = options.show_logits != options_.show_logits;
    options_ = options;
    if (logits_changed) {
        const QCPColorGradient gradient = heatmap::gradient(options_.show_logits);
        scale_->setGradient(gradient);
        map_->setGradient(gradient);
    }
    applyFonts();
    refresh();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString HeadDetailView::infoText() const {
    QTextDocument doc;
    const bool shown = analysis_ && !analysis_->results.heads.empty() && !info_->text().isEmpty();
    doc.setHtml(shown ? infoHtml(*analysis_, head_, false) : info_->text());
    return doc.toPlainText();  // the notation as written ("d_k"): data, not display
}

void HeadDetailView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void HeadDetailView::refresh() {
    if (!analysis_ || analysis_->results.heads.empty()) {
        title_->setText(QStringLiteral("No analysis yet"));
        subtitle_->setText(QString());
        map_->data()->clear();
        info_->clear();
        return;
    }
    const Analysis& a = *analysis_;
    const int heads = static_cast<int>(a.results.heads.size());
    head_ = std::clamp(head_, 0, heads - 1);
    const bool logits = options_.show_logits;

    if (!window_.isEmpty() && !QRect(0, 0, a.nKeyValue(), a.nQuery()).contains(window_)) window_ = QRect();
    heatmap::fill(map_, a, head_, logits, window_);
    for (QCPAbstractItem* mark : row_marks_) plot_->removeItem(mark);
    row_marks_.clear();
    for (int row : heatmap::fullyMaskedRows(a)) row_marks_.push_back(heatmap::hatchRow(plot_, rect_, row, a.nKeyValue()));
    for (QCPAbstractItem* line : heatmap::sentenceBorder(plot_, rect_, a)) row_marks_.push_back(line);
    applyTokenWindow();
    scale_->setDataRange(colourRange(logits));
    const bool masked = heatmap::anyMasked(a);
    const auto title_of = [&](bool compact) {
        const QString what = compact ? (logits ? QStringLiteral("logits") : QStringLiteral("weights"))
                                     : (logits ? QStringLiteral("attention logits (before softmax)")
                                               : QStringLiteral("attention weights (softmax)"));
        return QStringLiteral("head %1 · %2").arg(head_).arg(what);
    };
    full_title_ = title_of(false);
    subtitle_text_.clear();
    if (const HeadSpectra* s = spectraOf(a, head_)) {
        subtitle_text_ = QStringLiteral("rank W_QK = %1 ≤ d_k = %2 · σ = %3")
                             .arg(s->qk.rank)
                             .arg(a.config.headDimK())
                             .arg(valueList(s->qk.singular_values, 4));
    }
    if (masked) subtitle_text_ += QStringLiteral(" · grey cells are masked");
    if (a.second_sentence > 0)
        subtitle_text_ += QStringLiteral(" · %1 lines: sentence B from token %2").arg(QLatin1String(heatmap::kSentenceBorderName)).arg(a.second_sentence);
    subtitle_text_ += zoomNote();
    chooseLabelFit();
    const QString title = title_of(compact_);
    // Compact: the thumbnails' colour bar beside names the values; this one keeps its numbers,
    // and in the lowest room carries the title.
    QString bar = compact_ ? (label_fit_.titled ? QString() : title) : heatmap::valueName(a, logits);
    if (masked && !compact_) bar += QStringLiteral("\n(grey = masked)");
    scale_->setLabel(bar);
    title_->setFont(heatmap::font(compact_ ? kCompactTitlePt : kTitlePt, options_.font_scale, true));

    const int width = titleWidth();
    title_->setText(fit::wrapLines(title, title_->font(), width));
    subtitle_->setText(fit::wrapLines(subtitle_text_, subtitle_->font(), width));
    info_->setText(infoHtml(a, head_, true));
    updateLabels();
}

void HeadDetailView::applyFonts() {
    const double s = options_.font_scale;
    title_->setFont(heatmap::font(kTitlePt, s, true));
    subtitle_->setFont(heatmap::font(kSubtitlePt, s));
    for (QCPAxis* axis : rect_->axes()) {
        axis->setTickLabelFont(heatmap::font(label_fit_.tick_pt, s));
        axis->setLabelFont(heatmap::font(kAxisPt, s, true));
    }
    rect_->axis(QCPAxis::atBottom)->setPadding(static_cast<int>(2 + 6 * s));
    scale_->setBarWidth(static_cast<int>(16 * s));
    scale_->axis()->setTickLabelFont(heatmap::font(kTickPt, s));
    scale_->axis()->setLabelFont(heatmap::font(kTickPt, s));
    // The side panel explains; it grows less than the labels so that the heatmap keeps its room.
    const double info_scale = std::min(s, 1.6);
    info_->setFont(heatmap::font(kInfoPt, info_scale));
    fitInfoWidth();
}

void HeadDetailView::onMouseMove(QMouseEvent* event) {
    QString text;
    int row = 0, col = 0;
    if (analysis_ &&
        heatmap::cellAt(rect_, event->position(), analysis_->nQuery(), analysis_->nKeyValue(), &row, &col))
        text = heatmap::cellText(*analysis_, head_, row, col);
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else if (text != hover_text_) {
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
    }
    if (text != hover_text_) {
        hover_text_ = text;
        emit cellHovered(text);
    }
}

void HeadDetailView::setInfoShown(bool on) { info_scroll_->setVisible(on); }

void HeadDetailView::fitInfoWidth() {
    // Wide enough for its numbers at the font's size, never more than 40% of the window.
    const double info_scale = std::min(options_.font_scale, 1.6);
    const int wanted = static_cast<int>(240 + 140 * info_scale);
    info_scroll_->setFixedWidth(std::clamp(int(0.4 * width()), 220, wanted));
}

void HeadDetailView::resizeEvent(QResizeEvent* event) {
    fitInfoWidth();
    QWidget::resizeEvent(event);
    if (analysis_) {
        refresh();  // titles wrap to the new width
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

}  // namespace headscope::ui
