#include "LoadProgressBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <cmath>

#include "LoadProgressRelay.h"

namespace headscope::ui {

LoadProgressBar::LoadProgressBar(QWidget* parent)
    : QWidget(parent), bar_(new QProgressBar(this)), stage_(new QLabel(this)), cancel_(new QPushButton(tr("Cancel"), this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(stage_);
    layout->addWidget(bar_);
    layout->addWidget(cancel_);
    bar_->setRange(0, 100);
    bar_->setMaximumWidth(160);
    cancel_->setToolTip(tr("Stop opening the model"));
    LoadProgressRelay& relay = LoadProgressRelay::instance();
    connect(&relay, &LoadProgressRelay::progress, this, &LoadProgressBar::showProgress);  // queued from the worker
    connect(cancel_, &QPushButton::clicked, &relay, &LoadProgressRelay::cancel);
    connect(cancel_, &QPushButton::clicked, this, [this]() { stage_->setText(tr("cancelling...")); });
    hide();
}

int LoadProgressBar::percent() const { return bar_->value(); }

QString LoadProgressBar::stage() const { return stage_->text(); }

void LoadProgressBar::showProgress(double fraction, const QString& stage) {
    if (fraction >= 1) {
        finish();
        return;
    }
    bar_->setValue(static_cast<int>(std::floor(100 * fraction)));
    stage_->setText(tr("Opening the model: %1").arg(stage));
    show();
}

void LoadProgressBar::finish() {
    bar_->setValue(100);
    hide();
}

}  // namespace headscope::ui
