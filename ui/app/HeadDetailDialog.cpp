#include "HeadDetailDialog.h"

#include <algorithm>

#include <QTabWidget>
#include <QVBoxLayout>

#include "HeadDetailView.h"
#include "ProjectionView.h"

namespace headscope::ui {

HeadDetailDialog::HeadDetailDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("head_detail_dialog"));
    setModal(false);
    setSizeGripEnabled(true);
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName(QStringLiteral("head_detail_tabs"));
    view_ = new HeadDetailView(tabs);
    projections_ = new ProjectionView(tabs);
    tabs->addTab(view_, tr("&Attention"));
    tabs->addTab(projections_, tr("&Projections W_Q, W_K, W_QK"));
    tabs->setTabToolTip(1, tr("The head's slices of the fused W_Q and W_K, and their product W_QK: "
                              "d_model x d_model, but of rank at most d_k."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs);
    resize(1000, 760);
    updateTitle();
}

void HeadDetailDialog::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    if (analysis_) head_ = std::clamp(head_, 0, analysis_->config.heads - 1);
    view_->setAnalysis(analysis_);
    view_->setHead(head_);
    projections_->setHead(head_);
    projections_->setAnalysis(analysis_);
    updateTitle();
}

void HeadDetailDialog::setHead(int head) {
    head_ = std::max(0, head);
    view_->setHead(head_);
    projections_->setHead(head_);
    updateTitle();
}

void HeadDetailDialog::setOptions(const ViewOptions& options) { view_->setOptions(options); }

void HeadDetailDialog::updateTitle() {
    const int heads = analysis_ ? analysis_->config.heads : 0;
    setWindowTitle(tr("Head %1 of %2 \u2014 HeadScope").arg(head_).arg(heads));
}

}  // namespace headscope::ui
