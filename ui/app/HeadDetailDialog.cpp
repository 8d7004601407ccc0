#include "HeadDetailDialog.h"

#include <algorithm>

#include <QScreen>
#include <QTabWidget>
#include <QVBoxLayout>

#include "HeadDetailView.h"
#include "CircuitView.h"
#include "RotaryDelta.h"

namespace headscope::ui {

HeadDetailDialog::HeadDetailDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("head_detail_dialog"));
    setModal(false);
    setSizeGripEnabled(true);
    auto* tabs = tabs_ = new QTabWidget(this);
    tabs->setObjectName(QStringLiteral("head_detail_tabs"));
    view_ = new HeadDetailView(tabs);
    circuits_ = new CircuitView(tabs);
    tabs->addTab(view_, tr("&Attention"));
    // A tab's text cannot be typeset: its name in words; "W_QK" and "W_OV" in its titles and tool tip.
    tabs->addTab(circuits_, tr("&Circuits"));
    tabs->setTabToolTip(1, tr("The head's slices of the fused W_Q, W_K, W_V, W_O and their products W_QK and "
                              "W_OV: d_model x d_model, but of rank at most d_k (d_v)."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs);
    // Large, but within the screen: a projector's 1024 x 768 keeps the title bar on screen.
    QSize size(1000, 760);
    if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size() * 0.94);
    resize(size);
    updateTitle();
}

void HeadDetailDialog::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    if (analysis_) head_ = std::clamp(head_, 0, analysis_->config.heads - 1);
    view_->setAnalysis(analysis_);
    view_->setHead(head_);
    circuits_->setHead(head_);
    circuits_->setAnalysis(analysis_);
    updateTitle();
    updateCircuitsTab();
}

void HeadDetailDialog::setHead(int head) {
    head_ = std::max(0, head);
    view_->setHead(head_);
    circuits_->setHead(head_);
    updateTitle();
}

void HeadDetailDialog::setCircuits(std::shared_ptr<const Circuits> circuits) { circuits_->setCircuits(std::move(circuits)); }

void HeadDetailDialog::setOptions(const ViewOptions& options) {
    view_->setOptions(options);
    circuits_->setOptions(options);
}

void HeadDetailDialog::setRotaryDelta(RotaryDelta* delta) {
    if (!delta || delta_) return;
    delta_ = delta;
    circuits_->setRotaryDelta(delta);
    connect(delta_, &RotaryDelta::deltaChanged, this, &HeadDetailDialog::updateCircuitsTab);
    updateCircuitsTab();
}

QString HeadDetailDialog::circuitsTabText() const { return tabs_->tabText(1); }

void HeadDetailDialog::updateCircuitsTab() {
    // The rotary layer's W_QK depends on the distance: the tab names the Delta it shows.
    const bool rotary = delta_ && delta_->rotary() && analysis_ && analysis_->rotary.enabled();
    tabs_->setTabText(1, rotary ? tr("&Circuits at Δ = %1").arg(delta_->delta()) : tr("&Circuits"));
}

void HeadDetailDialog::updateTitle() {
    const int heads = analysis_ ? analysis_->config.heads : 0;
    setWindowTitle(tr("Head %1 of %2 \u2014 HeadScope").arg(head_).arg(heads));
}

}  // namespace headscope::ui
