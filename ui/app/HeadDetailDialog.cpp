#include "HeadDetailDialog.h"

#include <algorithm>

#include <QScreen>
#include <QTabWidget>
#include <QVBoxLayout>

#include "HeadDetailView.h"
#include "CircuitView.h"

namespace headscope::ui {

HeadDetailDialog::HeadDetailDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("head_detail_dialog"));
    setModal(false);
    setSizeGripEnabled(true);
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName(QStringLiteral("head_detail_tabs"));
    view_ = new HeadDetailView(tabs);
    circuits_ = new CircuitView(tabs);
    tabs->addTab(view_, tr("&Attention"));
    tabs->addTab(circuits_, tr("&Circuits W_QK, W_OV"));
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

void HeadDetailDialog::updateTitle() {
    const int heads = analysis_ ? analysis_->config.heads : 0;
    setWindowTitle(tr("Head %1 of %2 \u2014 HeadScope").arg(head_).arg(heads));
}

}  // namespace headscope::ui
