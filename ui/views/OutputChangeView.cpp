#include "OutputChangeView.h"

#include <algorithm>

namespace headscope::ui {

namespace {
const QColor kOutput(150, 150, 150);
const QColor kChange(200, 40, 40);

QString headList(const std::vector<int>& heads) {
    QStringList names;
    for (int h : heads) names << QString::number(h);
    return names.join(QStringLiteral(", "));
}
}  // namespace

OutputChangeView::OutputChangeView(QWidget* parent)
    : TokenBarStrip(parent, QStringLiteral("output_change_view"), tr("norm of the layer's output row")) {
    first_->setWidth(0.42);
    second_->setWidth(0.42);
    first_->setBrush(kOutput);
    second_->setBrush(kChange);
    first_->setName(tr("‖output‖ intact"));
}

void OutputChangeView::setAblation(std::shared_ptr<const model::LayerAblation> ablation, const QStringList& tokens) {
    ablation_ = std::move(ablation);
    labels_ = tokens;
    requestRefresh();
}

void OutputChangeView::refresh() {
    first_->data()->clear();
    second_->data()->clear();
    title_variants_.clear();
    message_.clear();
    const model::LayerAblation* a = ablation_.get();
    if (!a || a->heads.empty())
        message_ = tr("Right-click a head (Heads tab, rank table) to knock it out and see how this layer's output changes");
    axisRect()->setVisible(message_.isEmpty());
    legend->setVisible(message_.isEmpty());
    if (message_.isEmpty()) {
        double highest = 0;
        for (Eigen::Index p = 0; p < a->change.size(); ++p) {
            first_->addData(double(p), a->before_norm(p));
            second_->addData(double(p), a->change(p));
            highest = std::max({highest, a->before_norm(p), a->change(p)});
        }
        const QString heads = headList(a->heads);
        const QString mode = a->mode == model::AblationMode::Mean ? tr("mean") : tr("zero");
        second_->setName(tr("‖change‖ with head %1 off (%2)").arg(heads, mode));
        xAxis->setRange(-0.6, double(a->change.size()) - 0.4);
        yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1.0);
        const QString percent = QString::number(100 * a->relative_change, 'f', 1);
        title_variants_ = {
            tr("Head %1 off (%2): output = concat W_O + b_O recomputed; largest change %3, %4 % of the whole "
               "output; the other heads unchanged (differ by %5)")
                .arg(heads, mode).arg(a->max_change, 0, 'g', 3).arg(percent).arg(a->other_heads_max_difference, 0, 'g', 2),
            tr("Head %1 off (%2): largest change %3, %4 % of the output").arg(heads, mode).arg(a->max_change, 0, 'g', 3)
                .arg(percent),
            tr("%1 off: %2 % of the output").arg(heads, percent)};
    }
    fitAndReplot();
}

QString OutputChangeView::tipAt(int p) const {
    const model::LayerAblation* a = ablation_.get();
    if (!a || p < 0 || p >= a->change.size()) return {};
    const QString word = p < labels_.size() ? labels_[p] : QString();
    return tr("position %1 “%2”: ‖output‖ %3, ‖change‖ %4 (%5 %)")
        .arg(p).arg(word).arg(a->before_norm(p), 0, 'g', 4).arg(a->change(p), 0, 'g', 4)
        .arg(a->before_norm(p) > 0 ? 100 * a->change(p) / a->before_norm(p) : 0.0, 0, 'f', 1);
}

}  // namespace headscope::ui
