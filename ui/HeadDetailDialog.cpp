#include "HeadDetailDialog.h"

#include <algorithm>

#include <QVBoxLayout>

#include "HeadDetailView.h"

namespace headscope::ui {

HeadDetailDialog::HeadDetailDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("head_detail_dialog"));
    setModal(false);
    setSizeGripEnabled(true);
    view_ = new HeadDetailView(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    resize(900, 760);
    updateTitle();
}

void HeadDetailDialog::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    if (analysis_) head_ = std::clamp(head_, 0, analysis_->config.heads - 1);
    view_->setAnalysis(analysis_);
    view_->setHead(head_);
    updateTitle();
}

void HeadDetailDialog::setHead(int head) {
    head_ = std::max(0, head);
    view_->setHead(head_);
    updateTitle();
}

void HeadDetailDialog::setOptions(const ViewOptions& options) { view_->setOptions(options); }

void HeadDetailDialog::updateTitle() {
    const int heads = analysis_ ? analysis_->config.heads : 0;
    setWindowTitle(tr("Head %1 of %2 \u2014 HeadScope").arg(head_).arg(heads));
}

}  // namespace headscope::ui
