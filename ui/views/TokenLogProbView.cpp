#include "TokenLogProbView.h"

#include <algorithm>
#include <cmath>

namespace headscope::ui {

namespace {
const QColor kBefore(150, 150, 150);
const QColor kAfter(230, 120, 20);
const QColor kIntact(40, 110, 180);

QString headList(const model::Ablation& ablation) {
    QStringList names;
    for (const model::HeadRef& h : ablation.heads) names << QString::fromStdString(model::toString(h));
    return names.join(QStringLiteral(", "));
}
}  // namespace

TokenLogProbView::TokenLogProbView(QWidget* parent)
    : TokenBarStrip(parent, QStringLiteral("token_logprob_view"), tr("log p of the actual next token")) {
    // 0 at the top, each bar hanging down to its log-probability: the longer, the more surprised.
    yAxis->setRangeReversed(false);
    yAxis2->setRangeReversed(false);
    second_->setBrush(kAfter);
    legend->setVisible(false);  // only with heads off
}

void TokenLogProbView::setEffects(std::shared_ptr<const model::AblationEffects> effects) {
    effects_ = std::move(effects);
    requestRefresh();
}

void TokenLogProbView::refresh() {
    first_->data()->clear();
    second_->data()->clear();
    title_variants_.clear();
    message_.clear();
    const model::AblationEffects* e = effects_.get();
    if (!e) {
        message_ = tr("Open a model (File > Open model) to see how well it predicts each token of the text");
    } else if (e->encoder && !e->has_logprobs) {
        message_ = tr("An encoder guesses masked tokens, not the next one: put [MASK] in the text to see its guesses "
                      "here, with and without the heads you knock out");
    } else if (!e->has_logprobs) {
        message_ = tr("The text is too long to compute every position's logits here: shorten it to see each token's "
                      "log-probability");
    } else if (e->before.tokens.empty()) {
        message_ = tr("One token: there is no next token of the text to predict. Type more.");
    }
    const bool ablated = e && !e->ablation.empty();
    axisRect()->setVisible(message_.isEmpty());
    legend->setVisible(message_.isEmpty() && ablated);
    if (message_.isEmpty()) {
        labels_.clear();
        for (const std::string& t : e->tokens) labels_ << QString::fromStdString(t);
        double lowest = 0;
        for (std::size_t i = 0; i < e->before.tokens.size(); ++i) {
            const model::TokenLogProb& b = e->before.tokens[i];
            const model::TokenLogProb& a = e->after.tokens[i];
            first_->addData(b.position, b.logprob);
            if (ablated) second_->addData(a.position, a.logprob);
            lowest = std::min({lowest, b.logprob, a.logprob});
        }
        // One bar per token, or two side by side (the group) with heads off.
        first_->setBarsGroup(ablated ? group_ : nullptr);
        first_->setWidth(ablated ? 0.42 : 0.8);
        second_->setWidth(0.42);
        first_->setBrush(ablated ? kBefore : kIntact);
        first_->setName(tr("intact"));
        second_->setName(tr("%1 off").arg(headList(e->ablation)));
        second_->setVisible(ablated);
        xAxis->setRange(e->encoder ? -0.6 : 0.4, double(e->tokens.size()) - 0.4);  // an encoder's [CLS] may be masked
        yAxis->setRange(std::min(-1.0, lowest * 1.08), 0);
        const model::TokenLogProbs& b = e->before;
        const model::TokenLogProbs& a = e->after;
        if (e->encoder) {  // the intact guess at each [MASK], its log-probability with the heads on and off
            QStringList guesses;
            for (const model::TokenLogProb& g : b.tokens) guesses << QString::fromStdString(g.token);
            const QString what = tr("[MASK] guessed “%1”").arg(guesses.join(QStringLiteral("”, “")));
            title_variants_ = ablated ? QStringList{tr("Log-probability of each intact guess: %1, mean log p %2 → %3 with %4 off")
                                                        .arg(what).arg(-b.loss, 0, 'f', 3).arg(-a.loss, 0, 'f', 3)
                                                        .arg(headList(e->ablation)),
                                                    tr("%1: log p %2 → %3").arg(what).arg(-b.loss, 0, 'f', 2).arg(-a.loss, 0, 'f', 2),
                                                    tr("“%1” %2 → %3").arg(guesses.join(QStringLiteral("”, “")))
                                                        .arg(-b.loss, 0, 'f', 2).arg(-a.loss, 0, 'f', 2)}
                                      : QStringList{tr("Log-probability of each guess: %1, mean log p %2 · right-click a head "
                                                       "to knock it out").arg(what).arg(-b.loss, 0, 'f', 3),
                                                    tr("%1: log p %2").arg(what).arg(-b.loss, 0, 'f', 3),
                                                    tr("“%1” %2").arg(guesses.join(QStringLiteral("”, “"))).arg(-b.loss, 0, 'f', 2)};
        } else if (ablated) {
            const QString mode = QString::fromUtf8(model::toString(e->ablation.mode));
            const QString change = (e->lossChange() >= 0 ? QStringLiteral("+") : QStringLiteral("−")) +
                                   QString::number(std::abs(e->lossChange()), 'f', 3);
            title_variants_ = {
                tr("Log-probability of each actual next token: loss %1 → %2 (%3) with %4 off (%5)")
                    .arg(b.loss, 0, 'f', 3).arg(a.loss, 0, 'f', 3).arg(change, headList(e->ablation), mode),
                tr("loss %1 → %2 (%3) with %4 off").arg(b.loss, 0, 'f', 3).arg(a.loss, 0, 'f', 3)
                    .arg(change, headList(e->ablation)),
                tr("loss %1 → %2").arg(b.loss, 0, 'f', 2).arg(a.loss, 0, 'f', 2)};
        } else {
            title_variants_ = {tr("Log-probability of each actual next token: loss %1 · right-click a head to knock it out")
                                   .arg(b.loss, 0, 'f', 3),
                               tr("Log-probability of each next token: loss %1").arg(b.loss, 0, 'f', 3),
                               tr("loss %1").arg(b.loss, 0, 'f', 2)};
        }
    }
    fitAndReplot();
}

QString TokenLogProbView::tipAt(int p) const {
    const model::AblationEffects* e = effects_.get();
    if (!e) return {};
    const auto at = std::find_if(e->before.tokens.begin(), e->before.tokens.end(),
                                 [p](const model::TokenLogProb& t) { return t.position == p; });  // a decoder's: p - 1
    if (at == e->before.tokens.end() || e->after.tokens.size() != e->before.tokens.size()) return {};
    const model::TokenLogProb& b = *at;
    const model::TokenLogProb& a = e->after.tokens[std::size_t(at - e->before.tokens.begin())];
    QString text = tr(e->encoder ? "[MASK] at %1 guessed “%2”: log p %3 (p = %4)%5" : "position %1 “%2”: log p %3 (p = %4)%5")
                       .arg(p).arg(QString::fromStdString(b.token)).arg(b.logprob, 0, 'f', 3)
                       .arg(std::exp(b.logprob), 0, 'f', 3).arg(b.top ? tr(", the first choice") : QString());
    if (!e->ablation.empty())
        text += tr("\nwith %1 off: log p %2 (p = %3)%4").arg(headList(e->ablation)).arg(a.logprob, 0, 'f', 3)
                    .arg(std::exp(a.logprob), 0, 'f', 3).arg(a.top ? tr(", the first choice") : QString());
    return text;
}

}  // namespace headscope::ui
