#include "StatusPanel.h"

#include <algorithm>

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>

#include "FittedLabel.h"
#include "WeightSource.h"
#include "Spectrum.h"
#include "PanelText.h"

namespace headscope::ui {

namespace {

// A residual: "0 (exact)" or "7.2e-07".
QString residual(double value) {
    return value == 0 ? QObject::tr("0 (exact)") : QString::number(value, 'e', 1);
}

QLabel* makeLabel(QWidget* parent, const char* name, const QString& tip) {
    auto* label = new QLabel(parent);
    label->setObjectName(QLatin1String(name));
    label->setToolTip(tip);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setTextFormat(Qt::PlainText);
    label->setMinimumWidth(1);  // a long note is clipped, it never widens the window
    return label;
}

// The facts say as much as the width allows, in fewer words when narrow (large fonts).
FittedLabel* makeFact(QWidget* parent, const char* name, const QString& explanation) {
    auto* label = new FittedLabel(parent);
    label->setObjectName(QLatin1String(name));
    label->setExplanation(explanation);
    return label;
}

// "8 8 8 8" for a few heads; "64 in all 12 heads" or "64 64 32 ..." (up to 16) for more.
QString rankList(const std::vector<HeadSpectra>& spectra) {
    if (spectra.empty()) return QStringLiteral("-");
    if (spectra.size() <= 8) {
        QStringList ranks;
        for (const HeadSpectra& s : spectra) ranks << QString::number(s.qk.rank);
        return ranks.join(QLatin1Char(' '));
    }
    const auto [lo, hi] = std::minmax_element(spectra.begin(), spectra.end(),
        [](const HeadSpectra& a, const HeadSpectra& b) { return a.qk.rank < b.qk.rank; });
    if (lo->qk.rank == hi->qk.rank)
        return QObject::tr("%1 in all %2 heads").arg(lo->qk.rank).arg(spectra.size());
    if (spectra.size() <= 16) {
        QStringList ranks;
        for (const HeadSpectra& s : spectra) ranks << QString::number(s.qk.rank);
        return ranks.join(QLatin1Char(' '));
    }
    return QStringLiteral("min %1, max %2 over %3 heads").arg(lo->qk.rank).arg(hi->qk.rank).arg(spectra.size());
}

}  // namespace

StatusPanel::StatusPanel(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("status_panel"));
    params_explanation_ =
        tr("Parameters of one head's query and key maps: two thin matrices W_Q, W_K (d_model x d_k each) "
           "instead of one d_model x d_model matrix W_QK = W_Q W_K^T. The layer total counts W_Q, W_K, W_V, "
           "W_O and the biases.");
    params_ = makeFact(this, "status_params", params_explanation_);
    rank_ = makeFact(this, "status_rank",
        tr("Numerical rank of each head's W_QK = W_Q W_K^T, in head order. It can never exceed d_k: a head "
           "compares tokens in at most d_k directions."));
    equivalence_ = makeFact(this, "status_equivalence",
        tr("The logits computed three ways: all heads at once (fused), head by head, and through the merged "
           "d_model x d_model matrix W_QK. The numbers are the largest differences: rounding only."));
    timing_ = makeLabel(this, "status_timing",
        tr("Time from the change of a control to the new result on screen."));
    note_ = makeLabel(this, "status_note", tr("The heatmap cell under the mouse."));

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(4, 2, 4, 2);
    grid->setHorizontalSpacing(24);
    grid->setVerticalSpacing(2);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    arrange();
    equivalence_->setVariants({tr("Equivalence: waiting for the first result")});
}

void StatusPanel::arrange() {
    auto* grid = static_cast<QGridLayout*>(layout());
    for (QWidget* w : {static_cast<QWidget*>(params_), static_cast<QWidget*>(rank_), static_cast<QWidget*>(equivalence_),
                       static_cast<QWidget*>(timing_), static_cast<QWidget*>(note_)})
        grid->removeWidget(w);
    FittedLabel* leading = leading_ == Fact::Equivalence ? equivalence_ : params_;
    if (compact_) {
        // One line: the leading fact, and the hovered cell on the right; the rest on hover.
        grid->addWidget(leading, 0, 0);
        grid->addWidget(note_, 0, 1, Qt::AlignRight);
    } else {
        // Three lines; the long ones get the room, the changing ones (timing, hovered cell) sit
        // on the right so the facts never move.
        grid->addWidget(params_, 0, 0, 1, 2);
        grid->addWidget(rank_, 1, 0);
        grid->addWidget(timing_, 1, 1, Qt::AlignRight);
        grid->addWidget(equivalence_, 2, 0);
        grid->addWidget(note_, 2, 1, Qt::AlignRight);
    }
    for (FittedLabel* fact : {params_, rank_, equivalence_}) fact->setVisible(!compact_ || fact == leading);
    timing_->setVisible(!compact_);
    updateTip();
}

void StatusPanel::setLeadingFact(Fact fact) {
    if (fact == leading_) return;
    leading_ = fact;
    arrange();
}

void StatusPanel::setCompact(bool compact) {
    if (compact == compact_) return;
    compact_ = compact;
    arrange();
}

// On one line, the facts not shown are in the parameters' tool tip and the panel's.
void StatusPanel::updateTip() {
    const QString rest = QStringList{rank_->fullText(), equivalence_->fullText(), timing_->text()}.join(QLatin1Char('\n'));
    params_->setExplanation(compact_ ? rest + QStringLiteral("\n\n") + params_explanation_ : params_explanation_);
    setToolTip(compact_ ? text() : QString());
}

void StatusPanel::showEvent(QShowEvent* event) {
    QFrame::showEvent(event);
    QWidget* top = window();
    if (top == watched_ || top == this) return;  // a panel on its own keeps its three lines
    if (watched_) watched_->removeEventFilter(this);
    watched_ = top;
    watched_->installEventFilter(this);
    setCompact(watched_->height() < kCompactBelow);
}

bool StatusPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == watched_ && event->type() == QEvent::Resize) setCompact(watched_->height() < kCompactBelow);
    return QFrame::eventFilter(watched, event);
}

void StatusPanel::setScope(const QString& scope) {
    if (scope == scope_) return;
    scope_ = scope;
    applyParams();
}

void StatusPanel::applyParams() {
    if (params_variants_.isEmpty()) return;
    QStringList variants = params_variants_;
    if (!scope_.isEmpty())
        for (QString& v : variants) v = scope_ + QStringLiteral(": ") + v;
    params_->setVariants(variants);
}

void StatusPanel::showAnalysis(const Analysis& a, double update_ms) {
    const Cost& cost = a.cost;
    const double ratio = cost.qk_factored_params > 0 ? double(cost.qk_merged_params) / cost.qk_factored_params : 0;
    const QString factored = groupedCount(cost.qk_factored_params), merged = groupedCount(cost.qk_merged_params),
                  times = QString::number(ratio, 'g', 3), layer = groupedCount(cost.total_params);
    params_variants_ =
        {tr("Params per head: W_Q+W_K %1 (2\u00B7d_model\u00B7d_k) vs merged W_QK %2 (d_model\u00B2, %3\u00D7)"
            " \u2022 layer %4").arg(factored, merged, times, layer),
         tr("Params per head: W_Q+W_K %1 vs merged W_QK %2 (%3\u00D7) \u2022 layer %4").arg(factored, merged, times, layer),
         tr("W_Q+W_K %1 vs W_QK %2 params (%3\u00D7)").arg(factored, merged, times),
         tr("W_Q+W_K %1 vs W_QK %2").arg(factored, merged)};  // 2x fonts: both numbers whole, not "(0.5…"
    applyParams();
    const int d = a.weights().dModel();
    const int bound = rankBound(a.weights().d_k, d, d);
    QString range = QStringLiteral("-");
    if (!a.spectra.empty()) {
        const auto [lo, hi] = std::minmax_element(a.spectra.begin(), a.spectra.end(),
            [](const HeadSpectra& x, const HeadSpectra& y) { return x.qk.rank < y.qk.rank; });
        range = lo->qk.rank == hi->qk.rank ? tr("%1 in every head").arg(lo->qk.rank)
                                           : tr("%1 to %2").arg(lo->qk.rank).arg(hi->qk.rank);
    }
    rank_->setVariants({tr("rank W_QK: %1 (\u2264 min(d_k, d_model) = %2)").arg(rankList(a.spectra)).arg(bound),
                        tr("rank W_QK: %1 (\u2264 %2)").arg(rankList(a.spectra)).arg(bound),
                        tr("rank W_QK: %1 (\u2264 %2)").arg(range).arg(bound)});
    timing_->setText(tr("updated in %1 ms").arg(QString::number(update_ms, 'f', update_ms < 10 ? 1 : 0)));
    if (a.equivalence)
        showEquivalence(a);
    else if (!a.qk_norm.empty())  // addEquivalence leaves these layers out: no W_QK,i gives their logits
        equivalence_->setVariants(
            {tr("Logits not compared: %1, so no W_QK alone gives them").arg(QString::fromStdString(a.qk_norm)),
             tr("Logits not compared: q and k are normalised first"), tr("q, k normalised: not compared")});
    else if (a.mapBytes() > kMaxEquivalenceMapBytes)  // Session::startEquivalence leaves long inputs out
        equivalence_->setVariants(
            {tr("Logits fused / per-head / merged: not compared on %1 tokens (a copy of %2 MiB of maps)")
                 .arg(a.nQuery()).arg(qlonglong(a.mapBytes() / (1024 * 1024))),
             tr("Logits not compared on %1 tokens").arg(a.nQuery()), tr("Not compared: long input")});
    else
        equivalence_->setVariants(
            {tr("Equivalence fused / per-head / merged: computing\u2026"), tr("Equivalence: computing\u2026")});
    updateTip();
}

void StatusPanel::showEquivalence(const Analysis& a) {
    if (!a.equivalence) return;
    const Equivalence& e = *a.equivalence;
    if (e.compared_cells == 0) {
        equivalence_->setVariants({tr("Logits fused / per-head / merged: nothing to compare (every key is masked)"),
                                   tr("Logits: nothing to compare (every key masked)")});
        updateTip();
        return;
    }
    const QString per_head = residual(e.fused_vs_per_head), merged = residual(e.factored_vs_merged);
    // Each residual under its own name down to the shortest form: lesson 4 says "0" of the
    // per-head one, lesson 1 quotes the merged one (one number, their maximum, read 7.5e-07 under
    // lesson 4's "0").
    const auto bare = [](double value) { return value == 0 ? QStringLiteral("0") : QString::number(value, 'e', 1); };
    equivalence_->setVariants(
        {tr("Logits agree: fused vs per-head %1, vs merged W_QK %2 (|logit| \u2264 %3)")
             .arg(per_head, merged, QString::number(e.max_abs_logit, 'g', 3)),
         tr("Logits agree: per-head %1, merged W_QK %2").arg(per_head, merged),
         tr("Logits: per-head %1, merged %2").arg(bare(e.fused_vs_per_head), bare(e.factored_vs_merged)),
         tr("per-head %1 \u00b7 merged %2").arg(bare(e.fused_vs_per_head), bare(e.factored_vs_merged))});
    updateTip();
}

void StatusPanel::showNote(const QString& text) {
    note_->setText(text);
    note_->setToolTip(text);  // whole where the line cuts it
}

void StatusPanel::clearNoteStartingWith(const QString& prefix) {
    if (note_->text().startsWith(prefix)) note_->clear();
}

void StatusPanel::showFailure(const QString& message) {
    timing_->setText(tr("computation failed: %1").arg(message));
    if (compact_) note_->setText(timing_->text());  // a failure is never only in a tool tip
    updateTip();
}

QString StatusPanel::text() const {
    return QStringList{params_->fullText(), rank_->fullText(), equivalence_->fullText(), timing_->text(), note_->text()}
        .join(QLatin1Char('\n'));
}

}  // namespace headscope::ui
