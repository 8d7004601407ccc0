#include "CostView.h"

#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QTextDocument>
#include <QVBoxLayout>

#include "Heatmap.h"

namespace headscope::ui {
namespace {

QString count(long long n) { return QLocale(QLocale::English).toString(qlonglong(n)); }

QString ratio(long long a, long long b) {
    return b > 0 ? QString::number(double(a) / double(b), 'g', 3) + QStringLiteral("×") : QStringLiteral("–");
}

// One row: what, formula, number.
QString row(const QString& what, const QString& formula, long long value, const QString& note = {}) {
    // A zero-width space after every "·" lets a long product wrap on a narrow page.
    QString breakable = formula;
    breakable.replace(QStringLiteral("·"), QStringLiteral("·\u200B"));
    return QStringLiteral("<tr><td>%1</td><td><i>%2</i></td><td align=right><b>%3</b></td><td>%4</td></tr>")
        .arg(what, breakable, count(value), note);
}

QString section(const QString& title) {
    return QStringLiteral("<tr><td colspan=4><br><b>%1</b></td></tr>").arg(title);
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
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(label_);
    scroll->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
    refresh();
}

QString CostView::html() const { return label_->text(); }

QWidget* CostView::page() const { return label_; }

QString CostView::plainText() const {
    QTextDocument doc;
    doc.setHtml(label_->text());
    return doc.toPlainText().remove(QChar(0x200B));  // the wrapping hints are not text
}

void CostView::refresh() {
    label_->setFont(heatmap::font(11, options_.font_scale));
    if (!analysis_) {
        label_->setText(tr("No analysis yet"));
        return;
    }
    const Analysis& a = *analysis_;
    const Cost& c = a.cost;
    const int d = a.weights().dModel(), h = a.weights().heads, kv = a.weights().kv_heads;
    const int d_k = a.weights().d_k, d_v = a.weights().d_v, n_q = a.nQuery(), n_kv = a.nKeyValue();
    QString t = QStringLiteral("<h3>Costs at d_model = %1, h = %2, kv = %3, d_k = %4, d_v = %5, "
                               "n_q = %6, n_kv = %7</h3><table cellspacing=4 width=100%>")
                    .arg(d).arg(h).arg(kv).arg(d_k).arg(d_v).arg(n_q).arg(n_kv);
    t += QStringLiteral("<tr><th align=left>what</th><th align=left>formula</th><th align=right>count</th><th></th></tr>");
    t += section(tr("One head's W_QK: two factors or one matrix? (parameters)"));
    t += row(tr("factored W_i^Q, W_i^K"), QStringLiteral("2 · d_model · d_k"), c.qk_factored_params);
    t += row(tr("merged W_QK,i"), QStringLiteral("d_model²"), c.qk_merged_params,
             tr("%1 the factored").arg(ratio(c.qk_merged_params, c.qk_factored_params)));
    t += section(tr("One head's logits (multiply-adds)"));
    t += row(tr("factored (X W_Q)(X W_K)ᵀ"), QStringLiteral("n_q·d_model·d_k + n_kv·d_model·d_k + n_q·n_kv·d_k"),
             c.logits_factored_flops);
    t += row(tr("merged X W_QK Xᵀ"), QStringLiteral("n_q·d_model² + n_q·n_kv·d_model"), c.logits_merged_flops,
             tr("%1 the factored").arg(ratio(c.logits_merged_flops, c.logits_factored_flops)));
    t += section(tr("Projections of the layer: 3 linear layers or 3h? (multiply-adds)"));
    t += row(tr("fused X W_Q, X W_K, X W_V, concat W_O"),
             QStringLiteral("n_q·d_model·h·d_k + n_kv·d_model·kv·(d_k + d_v) + n_q·h·d_v·d_model"), c.projection_flops);
    t += row(tr("per head: h maps each"), QStringLiteral("the same sum, split into column blocks"), c.projection_flops,
             tr("identical"));
    t += section(tr("Attention itself (scores and weighted values, multiply-adds)"));
    t += row(tr("one head"), QStringLiteral("n_q·n_kv·(d_k + d_v)"), c.attention_flops_per_head);
    t += row(tr("all %1 heads").arg(h), QStringLiteral("h·n_q·n_kv·(d_k + d_v)"), c.attention_flops_all_heads);
    t += row(tr("one full-width head"), QStringLiteral("n_q·n_kv·2·d_model"), c.attention_flops_full_width,
             tr("%1 the %2 heads").arg(ratio(c.attention_flops_full_width, c.attention_flops_all_heads)).arg(h));
    t += section(tr("The layer"));
    t += row(tr("parameters of W_Q, W_K, W_V, W_O and biases"),
             QStringLiteral("d_model·(h·d_k + kv·d_k + kv·d_v) + h·d_v·d_model (+ biases)"), c.total_params);
    t += QStringLiteral("</table>");
    label_->setText(t);
}

}  // namespace headscope::ui
