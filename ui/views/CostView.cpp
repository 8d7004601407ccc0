#include "CostView.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <QLabel>
#include <QResizeEvent>
#include <QLocale>
#include <QScrollArea>
#include <QTextDocument>
#include <QVBoxLayout>

#include "Heatmap.h"
#include "TextFit.h"
#include "TypesetText.h"
#include "PanelText.h"

namespace headscope::ui {
namespace {

QString ratio(long long a, long long b) {
    return b > 0 ? QString::number(double(a) / double(b), 'g', 3) + QStringLiteral("×") : QStringLiteral("–");
}

// A cell's text as HTML: its notation typeset ("W_i^Q" with its scripts, issue 21) on screen
// and in exports, or escaped as written for the plain-text copy.
QString cellHtml(const QString& text, bool typeset_notation) {
    return typeset_notation ? typeset::lineHtml(text) : text.toHtmlEscaped();
}

// One row: what, formula, number.
QString row(bool typeset_notation, const QString& what, const QString& formula, long long value, const QString& note = {}) {
    // A zero-width space after every "·" lets a long product wrap on a narrow page.
    QString breakable = formula;
    breakable.replace(QStringLiteral("·"), QStringLiteral("·\u200B"));
    return QStringLiteral("<tr><td>%1</td><td><i>%2</i></td><td align=right><b>%3</b></td><td>%4</td></tr>")
        .arg(cellHtml(what, typeset_notation), cellHtml(breakable, typeset_notation), groupedCount(value),
             cellHtml(note, typeset_notation));
}

QString section(bool typeset_notation, const QString& title) {
    return QStringLiteral("<tr><td colspan=4><br><b>%1</b></td></tr>").arg(cellHtml(title, typeset_notation));
}

}  // namespace

CostView::CostView(QWidget* parent) : AttentionView(FollowsAnalysis, parent) {
    label_ = new QLabel(this);
    label_->setObjectName(QStringLiteral("cost_text"));
    label_->setTextFormat(Qt::RichText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    label_->setMargin(12);
    // Long formulas wrap at their spaces: the page fits the tab's width at any font scale.
    label_->setWordWrap(true);
    label_->setAutoFillBackground(true);
    label_->setStyleSheet(QStringLiteral("QLabel { background: white; color: black; }"));
    scroll_ = new QScrollArea(this);
    scroll_->setWidget(label_);
    scroll_->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll_);
    refresh();
}

void CostView::setNamedSection(const QString& section) {
    if (section == named_) return;
    named_ = section;
    requestRefresh();
}

QString CostView::html() const { return label_->text(); }

QWidget* CostView::page() const { return label_; }

QString CostView::plainText() const {
    QTextDocument doc;
    doc.setHtml(plain_html_);  // the notation as written: data, not display
    // The wrapping hints are not text: breaks allowed (U+200B) and not (U+00A0).
    return doc.toPlainText().remove(QChar(0x200B)).replace(QChar(QChar::Nbsp), QLatin1Char(' '));
}

void CostView::refresh() {
    label_->setFont(heatmap::font(11, options_.font_scale));
    if (!analysis_) {
        label_->setText(tr("No analysis yet"));
        plain_html_ = label_->text();
        return;
    }
    label_->setText(pageHtml(true));
    plain_html_ = pageHtml(false);
    fitToRoom();
}

QString CostView::pageHtml(bool typeset_notation) const {
    const bool shown = typeset_notation;
    const Analysis& a = *analysis_;
    const Cost& c = a.cost;
    const int d = a.weights().dModel(), h = a.weights().heads, kv = a.weights().kv_heads;
    const int d_k = a.weights().d_k, d_v = a.weights().d_v, n_q = a.nQuery(), n_kv = a.nKeyValue();
    // Each "n_kv = 11" kept on one line (issue 36 item 14: "n_kv" / "= 11").
    QStringList dimensions;
    for (const auto& [name, value] : {std::pair{"d_model", d}, {"h", h}, {"kv", kv}, {"d_k", d_k}, {"d_v", d_v}, {"n_q", n_q}, {"n_kv", n_kv}})
        dimensions << fit::together(QStringLiteral("%1 = %2").arg(QLatin1String(name)).arg(value));
    QString t = QStringLiteral("<h3>%1</h3><table cellspacing=4 width=100%>")
                    .arg(cellHtml(QStringLiteral("Costs at ") + dimensions.join(QStringLiteral(", ")), shown));
    t += QStringLiteral("<tr><th align=left>what</th><th align=left>formula</th><th align=right>count</th><th></th></tr>");
    // The sections, each under its key (lessons::focusNames()); the one a lesson step names comes
    // first, shaded, where the tab may have no room for all of them.
    std::vector<std::pair<QString, QString>> parts;
    QString p = section(shown, tr("One head's W_QK: two factors or one matrix? (parameters)"));
    p += row(shown, tr("factored W_i^Q, W_i^K"), QStringLiteral("2 · d_model · d_k"), c.qk_factored_params);
    p += row(shown, tr("merged W_QK,i"), QStringLiteral("d_model²"), c.qk_merged_params,
             tr("%1 the factored").arg(ratio(c.qk_merged_params, c.qk_factored_params)));
    parts.emplace_back(QStringLiteral("parameters"), p);
    p = section(shown, tr("One head's logits (multiply-adds)"));
    p += row(shown, tr("factored (X W_Q)(X W_K)ᵀ"), QStringLiteral("n_q·d_model·d_k + n_kv·d_model·d_k + n_q·n_kv·d_k"),
             c.logits_factored_flops);
    p += row(shown, tr("merged X W_QK Xᵀ"), QStringLiteral("n_q·d_model² + n_q·n_kv·d_model"), c.logits_merged_flops,
             tr("%1 the factored").arg(ratio(c.logits_merged_flops, c.logits_factored_flops)));
    parts.emplace_back(QStringLiteral("logits"), p);
    p = section(shown, tr("Projections of the layer: 3 linear layers or 3h? (multiply-adds)"));
    p += row(shown, tr("fused X W_Q, X W_K, X W_V, concat W_O"),
             QStringLiteral("n_q·d_model·h·d_k + n_kv·d_model·kv·(d_k + d_v) + n_q·h·d_v·d_model"), c.projection_flops);
    p += row(shown, tr("per head: h maps each"), QStringLiteral("the same sum, split into column blocks"), c.projection_flops,
             tr("identical"));
    parts.emplace_back(QStringLiteral("projections"), p);
    p = section(shown, tr("Attention itself (scores and weighted values, multiply-adds)"));
    p += row(shown, tr("one head"), QStringLiteral("n_q·n_kv·(d_k + d_v)"), c.attention_flops_per_head);
    p += row(shown, tr("all %1 heads").arg(h), QStringLiteral("h·n_q·n_kv·(d_k + d_v)"), c.attention_flops_all_heads);
    p += row(shown, tr("one full-width head"), QStringLiteral("n_q·n_kv·2·d_model"), c.attention_flops_full_width,
             tr("%1 the %2 heads").arg(ratio(c.attention_flops_full_width, c.attention_flops_all_heads)).arg(h));
    parts.emplace_back(QStringLiteral("attention"), p);
    p = section(shown, tr("The layer"));
    p += row(shown, tr("parameters of W_Q, W_K, W_V, W_O and biases"),
             QStringLiteral("d_model·(h·d_k + kv·d_k + kv·d_v) + h·d_v·d_model (+ biases)"), c.total_params);
    parts.emplace_back(QStringLiteral("layer"), p);
    std::stable_partition(parts.begin(), parts.end(), [this](const auto& part) { return part.first == named_; });
    for (const auto& [key, rows] : parts)
        t += key == named_ ? QString(rows).replace(QStringLiteral("<tr>"), QStringLiteral("<tr bgcolor=\"#fff3c4\">")) : rows;
    t += QStringLiteral("</table>");
    return t;
}

void CostView::fitToRoom() {
    // In the window (issue 21: the Costs tab at 1024 x 768 without scrolling to the attention
    // and layer rows), the page's font steps down until its wrapped text fits the tab's
    // height, to kSmallestFontShare of its size at most; below that the page scrolls. Not
    // shown (export), the page keeps its font and is drawn whole at its own height.
    if (!isVisible() || !analysis_) return;
    const int frame = 2 * scroll_->frameWidth();
    const int width = scroll_->width() - frame, height = scroll_->height() - frame;
    if (width <= 0 || height <= 0) return;
    QFont font = heatmap::font(11, options_.font_scale);
    const double size = font.pointSizeF();
    for (double share = 1.0; share >= kSmallestFontShare - 1e-9; share -= 0.05) {
        font.setPointSizeF(size * share);
        label_->setFont(font);
        if (label_->heightForWidth(width) <= height) return;
    }
}

void CostView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitToRoom();  // the font that fits the new size
}

}  // namespace headscope::ui
