#include "ScoreBreakdownView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "HeadColors.h"
#include "Heatmap.h"
#include "ResultStore.h"
#include "TextFit.h"
#include "TokenAxis.h"
#include "TypesetAxis.h"
#include "TypesetTitle.h"

namespace headscope::ui {
namespace {

// A rotary layer's score, pair by pair: q and k are the rotated vectors the softmax sees, and
// each rotary pair adds its own dot product (the rotation by theta_p (j - i) between them).
QStringList rotaryLines(const PairSplit& split, int delta) {
    QStringList pairs;
    const int shown = std::min<int>(static_cast<int>(split.pairs.size()), 6);
    for (int p = 0; p < shown; ++p)
        pairs << QStringLiteral("p%1 (θ %2, angle %3) %4")
                     .arg(p).arg(split.pairs[std::size_t(p)].frequency, 0, 'g', 3)
                     .arg(split.pairs[std::size_t(p)].angle, 0, 'g', 3).arg(split.pairs[std::size_t(p)].contribution, 0, 'g', 4);
    if (shown < static_cast<int>(split.pairs.size())) pairs << QStringLiteral("… %1 more pairs").arg(split.pairs.size() - shown);
    QStringList lines;
    lines << QStringLiteral("RoPE: q_i and k_j above are rotated (what the softmax sees); the score is "
                            "x_i W_i^Q R(Δ) W_i^Kᵀ x_jᵀ with Δ = j − i = %1, so no single W_QK,i gives it.").arg(delta);
    lines << QStringLiteral("By rotary pair, high frequency first: %1%2;  sum %3")
                 .arg(pairs.join(QStringLiteral(", ")))
                 .arg(split.unrotated == 0.0 ? QString() : QStringLiteral(";  unrotated dims %1").arg(split.unrotated, 0, 'g', 4))
                 .arg(split.total, 0, 'g', 6);
    return lines;
}

constexpr double kTitlePt = 13, kAxisPt = 10.5, kTickPt = 9.5, kTextPt = 11;
const QColor kQueryColor(0x00, 0x72, 0xB2), kKeyColor(0xD5, 0x5E, 0x00), kProductColor(0x55, 0x55, 0x55);
const QColor kRowColor(0x9E, 0xB8, 0xD0), kMarkColor(0xC0, 0x1C, 0x28);

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

QCPBars* makeBars(QCPAxisRect* rect, const QColor& colour) {
    auto* bars = new QCPBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    bars->setPen(Qt::NoPen);
    bars->setBrush(colour);
    bars->setWidth(0.8);
    return bars;
}

void fillBars(QCPBars* bars, const Eigen::VectorXf& values) {
    QVector<double> keys(values.size()), vals(values.size());
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        keys[i] = double(i);
        vals[i] = values(i);
    }
    bars->setData(keys, vals, true);
}

// y range symmetric about zero (or [0, max] for non-negative data), with a little room.
void fitRange(QCPAxisRect* rect, const Eigen::VectorXf& values, int n, bool non_negative) {
    const double m = values.size() ? double(values.cwiseAbs().maxCoeff()) : 1.0;
    const double top = heatmap::niceCeiling(std::max(m, 1e-6) * 1.08);
    rect->axis(QCPAxis::atLeft)->setRange(non_negative ? 0.0 : -top, top);
    rect->axis(QCPAxis::atBottom)->setRange(-0.6, std::max(1, n) - 0.4);
}

}  // namespace

ScoreBreakdownView::ScoreBreakdownView(QWidget* parent)
    : AttentionView(FollowsAnalysis | FollowsHead | FollowsCell | FollowsCircuits, parent) {
    drawsResults({ResultStore::Kind::ScoreBreakdown});
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("score_breakdown_plot"));
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* top = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, top);
    auto* group = new QCPMarginGroup(plot_);
    const QColor colours[] = {kQueryColor, kKeyColor, kProductColor, kRowColor};
    for (int c = 0; c < 4; ++c) {
        rects_[c] = new QCPAxisRect(plot_);
        TypesetAxis::adopt(rects_[c]);  // "q_i", "d_k" typeset
        rects_[c]->setRangeDrag(Qt::Orientations());
        rects_[c]->setRangeZoom(Qt::Orientations());
        rects_[c]->axis(QCPAxis::atBottom)->grid()->setVisible(false);
        rects_[c]->axis(QCPAxis::atLeft)->grid()->setZeroLinePen(QPen(Qt::black, 1));
        rects_[c]->setMarginGroup(QCP::msLeft, group);
        bars_[c] = makeBars(rects_[c], colours[c]);
        if (c < 3) top->addElement(0, c, rects_[c]);
    }
    rects_[Softmax]->setMarginGroup(QCP::msLeft, nullptr);
    text_ = new TypesetTitle(plot_, QString());
    text_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    plot_->plotLayout()->addElement(2, 0, text_);
    plot_->plotLayout()->addElement(3, 0, rects_[Softmax]);
    marked_ = makeBars(rects_[Softmax], kMarkColor);
    plot_->plotLayout()->setRowStretchFactor(0, 0.01);
    plot_->plotLayout()->setRowStretchFactor(1, 1.0);  // the charts' rows: equalised in fitToRoom()
    plot_->plotLayout()->setRowStretchFactor(2, 0.01);
    plot_->plotLayout()->setRowStretchFactor(3, 1.0);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    // Four charts and the arithmetic need about 20 lines of height: when the tab has less
    // (a projector at 2x fonts) the page scrolls instead of squeezing them unreadable.
    scroll_ = new QScrollArea(this);
    scroll_->setWidget(plot_);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll_);
    applyFonts();
}

QString ScoreBreakdownView::title() const { return title_full_.isEmpty() ? title_->text() : title_full_; }
QString ScoreBreakdownView::arithmetic() const { return text_full_; }

void ScoreBreakdownView::setOptions(const ViewOptions& options) {
    options_ = options;
    applyFonts();
    AttentionView::setOptions(options);
}

void ScoreBreakdownView::replotNow() {
    refresh();  // requests the breakdown, which export and tests draw now:
    results().wait();
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    refresh();  // token ticks thinned for the laid-out length
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void ScoreBreakdownView::applyFonts() {
    const double s = options_.font_scale;
    plot_->setMinimumWidth(320);
    title_->setFont(heatmap::font(kTitlePt, s, true));
    text_->setFont(heatmap::font(kTextPt, s));
    for (QCPAxisRect* rect : rects_)
        for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
            axis->setLabelFont(heatmap::font(kAxisPt, s));
            axis->setTickLabelFont(heatmap::font(kTickPt, s));
        }
}

void ScoreBreakdownView::refresh() {
    has_breakdown_ = false;
    if (!analysis_ || analysis_->results.heads.empty() || analysis_->nQuery() == 0 || analysis_->nKeyValue() == 0) {
        title_->setText(QStringLiteral("No analysis yet"));
        title_full_.clear();
        text_full_.clear();
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const Analysis& a = *analysis_;
    const int heads = static_cast<int>(a.results.heads.size());
    head_ = std::clamp(head_, 0, heads - 1);
    int row = cell_row_, col = cell_col_;
    const bool chosen = row >= 0 && col >= 0 && row < a.nQuery() && col < a.nKeyValue();
    if (!chosen) std::tie(row, col) = defaultCell(a, head_);
    const Eigen::MatrixXf* w_qk = circuits_ && circuits_->head == head_ && circuits_->W_QK.rows() == a.weights().dModel()
                                      ? &circuits_->W_QK : nullptr;
    const ResultStore::Result<ScoreBreakdown> breakdown =
        results().scoreBreakdown(analysis_, head_, row, col, w_qk ? circuits_ : nullptr);
    if (!breakdown) return;  // the last drawing stays until the breakdown is there
    if (!*breakdown) return title_->setText(QStringLiteral("No breakdown: out of memory"));
    breakdown_ = **breakdown;
    has_breakdown_ = true;
    const ScoreBreakdown& b = breakdown_;
    const double s = options_.font_scale;

    // A rotary layer: q and k are the rotated vectors the softmax sees, and the title says so.
    const QString rotated = a.rotary.enabled() ? QStringLiteral(" (RoPE: q and k rotated, as the softmax sees them)") : QString();
    title_full_ = QStringLiteral("Head %1 · query %2 %3 → key %4 %5: how one score is made%7%6")
                      .arg(b.head).arg(b.row).arg(quoted(b.query_token)).arg(b.col).arg(quoted(b.key_token))
                      .arg(chosen ? QString()
                                  : for_file_ ? QStringLiteral("\n(the last query and the key it attends to most)")
                                              : QStringLiteral("\n(no cell selected: the last query and the key it "
                                                               "attends to most; click a cell in the Heads tab)"),
                           rotated);
    title_compact_ = QStringLiteral("Head %1: query %2 %3 → key %4 %5%7%6")
                         .arg(b.head).arg(b.row).arg(quoted(b.query_token)).arg(b.col).arg(quoted(b.key_token))
                         .arg(chosen ? QString() : QStringLiteral("\n(no cell selected: the last query, its most-attended key)"),
                              a.rotary.enabled() ? QStringLiteral(" · rotated q, k") : QString());
    title_->setTextColor(headColor(b.head).darker(130));

    const QString dims = QStringLiteral("dimension of head %1 (0 … d_k−1 = %2)").arg(b.head).arg(b.d_k - 1);
    const QString names[] = {QStringLiteral("q_i  (query %1 %2)").arg(b.row).arg(quoted(b.query_token, 10)),
                             QStringLiteral("k_j  (key %1 %2)").arg(b.col).arg(quoted(b.key_token, 10)),
                             QStringLiteral("q_i * k_j  (element-wise)")};
    const QString short_names[] = {QStringLiteral("q_i"), QStringLiteral("k_j"), QStringLiteral("q_i * k_j")};
    for (int c = 0; c < 3; ++c) {
        const Eigen::VectorXf& v = c == Query ? b.q : c == Key ? b.k : b.product;
        fillBars(bars_[c], v);
        bars_[c]->setVisible(!b.masked);
        fitRange(rects_[c], v, b.d_k, false);
        label_variants_[c][0] = c == 1 ? QStringList{dims, QStringLiteral("dimension"), QString()} : QStringList{QString()};
        label_variants_[c][1] = {names[c], short_names[c]};
    }
    // The softmax row over the key tokens, this cell marked.
    fillBars(bars_[Softmax], b.softmax_row);
    marked_->setData(QVector<double>{double(b.col)}, QVector<double>{b.weight}, true);
    fitRange(rects_[Softmax], b.softmax_row, a.nKeyValue(), true);
    label_variants_[Softmax][1] = {QStringLiteral("softmax weight"), QStringLiteral("weight")};
    label_variants_[Softmax][0] = {QStringLiteral("key tokens (%1): the whole softmax row of query %2 %3")
                                       .arg(a.input.cross ? QStringLiteral("source") : QStringLiteral("same sequence"))
                                       .arg(b.row).arg(quoted(b.query_token)),
                                   QStringLiteral("the softmax row of query %1 %2").arg(b.row).arg(quoted(b.query_token)),
                                   QStringLiteral("keys")};
    QStringList keys;
    for (const std::string& t : a.input.key_value.tokens) keys << QString::fromStdString(t);
    const int length = rects_[Softmax]->width() > 50 ? rects_[Softmax]->width() : int(plot_->width() * 0.85);
    setTokenTicks(rects_[Softmax]->axis(QCPAxis::atBottom), keys, heatmap::font(kTickPt, s), length);

    QStringList lines;
    if (b.masked) {
        lines << QStringLiteral("MASKED: %1. Its logit is −∞, so its weight is exactly 0; there is no score to "
                                "break down.").arg(QString::fromStdString(b.reason));
        if (a.results.allowed.row(b.row).any())
            lines << QStringLiteral("Pick a key this query may see (a coloured cell in its row).");
        else  // the whole row: what the softmax makes of it, not only of this cell
            lines << QStringLiteral("Every key of query %1 is masked: its softmax row is 0/0 (a sum of exp(−∞) = 0 "
                                    "divided by 0). PyTorch gives NaN there; HeadScope gives the whole row weight 0.")
                         .arg(b.row);
    } else {
        const QString scale = !a.config.scale  ? QStringLiteral("× 1 (scaling off)")
                              : a.scale_base > 0 ? QStringLiteral("× 1/√query_pre_attn_scalar = 1/√%1").arg(num(a.scale_base))
                                                 : QStringLiteral("× 1/√d_k = 1/√%1").arg(b.d_k);
        if (b.q_projected.size())  // Qwen3, Gemma 3, OLMo 2: RMSNorm first
            lines << QStringLiteral("q and k are normalised before the score (%1): |q_i| %2 → %3, |k_j| %4 → %5 after their norm.")
                         .arg(QString::fromStdString(a.qk_norm), num(b.q_projected.norm()), num(b.q.norm()),
                              num(b.k_projected.norm()), num(b.k.norm()));
        if (b.softcap > 0)
            lines << QStringLiteral("q_i · k_j = Σ (q_i * k_j) = %1   %2   ÷ T = %3   →  %4, softcapped %5 tanh(%4 / %5) = "
                                    "logit %6   (engine: %7)")
                         .arg(num(b.dot, 5), scale, num(b.temperature), num(b.logit, 5), num(b.softcap),
                              num(b.capped_logit, 5), num(b.engine_logit, 5));
        else
            lines << QStringLiteral("q_i · k_j = Σ (q_i * k_j) = %1   %2   ÷ T = %3   →  logit %4   (engine: %5)")
                         .arg(num(b.dot, 5), scale, num(b.temperature), num(b.logit, 5), num(b.engine_logit, 5));
        if (b.bilinear) {
            const BilinearScore& q = *b.bilinear;
            // Each term named with "=" before its value: "b_q b_kᵀ = 0", never "b_q b_kᵀ 0", which
            // reads as a product with zero (issue 21).
            if (a.weights().hasBias())
                // Wrapped between its terms, never inside one (issue 36 item 14: "b_q" / "W_i^Kᵀ x_jᵀ").
                lines << QStringLiteral("Through %1: %2, %3, %4, %5; %6  →  %7;  %8 (float rounding)")
                             .arg(fit::together(QStringLiteral("W_QK,i = W_i^Q W_i^Kᵀ")),
                                  fit::together(QStringLiteral("x_i W_QK,i x_jᵀ = ") + num(q.main, 5)),
                                  fit::together(QStringLiteral("x_i W_i^Q b_kᵀ = ") + num(q.query_bias)),
                                  fit::together(QStringLiteral("b_q W_i^Kᵀ x_jᵀ = ") + num(q.key_bias)),
                                  fit::together(QStringLiteral("b_q b_kᵀ = ") + num(q.bias_bias)),
                                  fit::together(QStringLiteral("their sum ") + num(q.sum, 5)),
                                  fit::together(QStringLiteral("logit ") + num(q.logit, 5)),
                                  fit::together(QStringLiteral("difference ") + num(q.difference, 2)));
            else
                lines << QStringLiteral("Through %1: %2  →  %3;  %4 (float rounding)")
                             .arg(fit::together(QStringLiteral("W_QK,i = W_i^Q W_i^Kᵀ")),
                                  fit::together(QStringLiteral("x_i W_QK,i x_jᵀ = ") + num(q.main, 5)),
                                  fit::together(QStringLiteral("logit ") + num(q.logit, 5)),
                                  fit::together(QStringLiteral("difference ") + num(q.difference, 2)));
        } else if (b.rotary_pairs) {
            lines << rotaryLines(*b.rotary_pairs, b.delta);
        } else {
            lines << (a.weights().dModel() > kMaxWindowCircuitDModel
                          ? QStringLiteral("W_QK,i (%1 × %1) is not formed in the window; headscope-cli export shows "
                                           "the bilinear form").arg(a.weights().dModel())
                          : QStringLiteral("forming W_QK,i for the bilinear form…"));
        }
    }
    lines << QStringLiteral("softmax: weight of key %1 %2 = %3 (red bar), of %4 keys in the row")
                 .arg(b.col).arg(quoted(b.key_token)).arg(num(b.weight, 4)).arg(a.nKeyValue());
    text_full_ = lines.join(QLatin1Char('\n'));
    text_->setTextColor(b.masked ? kMarkColor : Qt::black);
    fitToRoom();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScoreBreakdownView::fitToRoom() {
    // The title and the arithmetic wrap to the plot's width; each axis label takes the longest
    // wording its chart's side holds; numbers are thinned to the charts' height and width.
    if (!has_breakdown_) return;
    const double width = plot_->viewport().width() - 12;
    // The whole title while it wraps to a few lines; past that (a small tab at large fonts) the
    // cell and a shorter note, so the charts stay in sight.
    const QString whole = fit::wrapLines(title_full_, title_->font(), width);
    title_->setText(whole.count(QLatin1Char('\n')) + 1 <= kMaxTitleLines ? whole : fit::wrapLines(title_compact_, title_->font(), width));
    text_->setText(fit::wrapLines(text_full_, text_->font(), width, false));  // "q_i · k_j" is a product
    // The page is as tall as its wrapped words plus charts of a readable height (the scroll
    // area scrolls when the tab is shorter).
    const double line = QFontMetricsF(heatmap::font(kTickPt, options_.font_scale)).height();
    const auto height = [](const QCPTextElement* element) {
        return QFontMetricsF(element->font()).lineSpacing() * (element->text().count(QLatin1Char('\n')) + 1);
    };
    // Bar charts: 3 lines of bars, their numbers and a label; the softmax row: 3 lines of bars,
    // its label and the key words standing on end.
    double longest_key = 0;
    for (const std::string& token : analysis_->input.key_value.tokens)
        longest_key = std::max(longest_key, QFontMetricsF(heatmap::font(kTickPt, options_.font_scale))
                                                .horizontalAdvance(QString::fromStdString(token).left(12)));
    const int needed = std::max(static_cast<int>(height(title_) + height(text_) + 11 * line + longest_key + 24),
                                plot_->plotLayout()->minimumOuterSizeHint().height());  // never below the layout's own minimum
    if (plot_->minimumHeight() != needed) plot_->setMinimumHeight(needed);
    fit::layOut(plot_);
    // The bar charts and the softmax row get the same height for their bars, whatever their
    // words take (the softmax row's key words stand on end below it).
    const QCPAxisRect* bars = rects_[Query];
    const QCPAxisRect* row = rects_[Softmax];
    const double bars_margin = bars->outerRect().height() - bars->rect().height();
    const double row_margin = row->outerRect().height() - row->rect().height();
    const double inner = (bars->outerRect().height() + row->outerRect().height() - bars_margin - row_margin) / 2;
    if (inner > 1) {
        plot_->plotLayout()->setRowStretchFactor(1, inner + bars_margin);
        plot_->plotLayout()->setRowStretchFactor(3, inner + row_margin);
        fit::layOut(plot_);
    }
    for (int c = 0; c < 4; ++c) {
        const QRect r = rects_[c]->rect();
        QCPAxis* x = rects_[c]->axis(QCPAxis::atBottom);
        QCPAxis* y = rects_[c]->axis(QCPAxis::atLeft);
        x->setLabel(fit::longestThatFits(label_variants_[c][0], x->labelFont(), r.width()));
        const QString y_label = fit::longestThatFits(label_variants_[c][1], y->labelFont(), r.height());
        y->setLabel(y_label.isEmpty() ? label_variants_[c][1].back() : y_label);
        const int fits = std::clamp(int(r.height() / (2.2 * line)), 1, 5);  // tick labels the height holds
        if (c == Softmax) {
            y->ticker()->setTickCount(fits);
        } else {
            // q, k and their product: -top .. top (fitRange). Ticks at the ends and 0, with the halves
            // where five fit: a short chart (2x) kept a lone "0" from the automatic ticker.
            auto ticks = QSharedPointer<QCPAxisTickerFixed>::create();
            ticks->setScaleStrategy(QCPAxisTickerFixed::ssNone);
            ticks->setTickStep(y->range().upper / (fits >= 5 ? 2 : 1));
            y->setTicker(ticks);
        }
        if (c != Softmax) {  // dimensions 0 .. d_k-1
            auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
            const double label = QFontMetricsF(x->tickLabelFont()).horizontalAdvance(QString::number(breakdown_.d_k - 1));
            ticker->setTickStep(fit::tickStep(breakdown_.d_k, r.width() / std::max(1.0, double(breakdown_.d_k)), label + line, false));
            x->setTicker(ticker);
        }
    }
}

void ScoreBreakdownView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitToRoom();
}

bool ScoreBreakdownView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && has_breakdown_ &&
        (event->type() == QEvent::MouseMove || event->type() == QEvent::MouseButtonRelease)) {
        const QPointF pos = static_cast<QMouseEvent*>(event)->position();
        const ScoreBreakdown& b = breakdown_;
        for (int c = 0; c < 4; ++c) {
            if (!rects_[c]->rect().contains(pos.toPoint())) continue;
            const int i = int(std::lround(rects_[c]->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
            if (c == Softmax) {
                if (i < 0 || i >= b.softmax_row.size()) break;
                if (event->type() == QEvent::MouseButtonRelease) {
                    emit cellClicked(b.row, i);
                    return true;
                }
                emit hovered(heatmap::cellText(*analysis_, b.head, b.row, i));
            } else if (!b.masked && i >= 0 && i < b.d_k) {
                emit hovered(QStringLiteral("head %1 · dimension %2: q %3 × k %4 = %5")
                                 .arg(b.head).arg(i).arg(num(b.q(i))).arg(num(b.k(i))).arg(num(b.product(i))));
            }
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
