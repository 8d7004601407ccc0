#include "DeltaSlider.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <algorithm>

#include "RotaryDelta.h"

namespace headscope::ui {

DeltaSlider::DeltaSlider(QWidget* parent) : QWidget(parent) {
    label_ = new QLabel(this);
    label_->setObjectName(QStringLiteral("delta_label"));
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("delta_slider"));
    slider_->setToolTip(tr("Relative offset Δ = j − i between key and query: W_QK,i(Δ) = W_i^Q R(Δ) (W_i^K)ᵀ"));
    follow_ = new QToolButton(this);
    follow_->setText(tr("Cell's Δ"));
    follow_->setToolTip(tr("Follow the selected cell's j − i again"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(label_);
    layout->addWidget(slider_, 1);
    layout->addWidget(follow_);
    connect(slider_, &QSlider::valueChanged, this, [this](int value) {
        if (delta_) delta_->setDelta(value);
    });
    connect(follow_, &QToolButton::clicked, this, [this]() {
        if (delta_) delta_->followCell();
    });
    setVisible(false);
}

void DeltaSlider::setRotaryDelta(RotaryDelta* delta) {
    delta_ = delta;
    connect(delta_, &RotaryDelta::deltaChanged, this, &DeltaSlider::sync);
    sync();
}

QString DeltaSlider::text() const { return label_->text(); }

void DeltaSlider::sync() {
    if (!delta_ || !delta_->rotary()) {
        setVisible(false);
        return;
    }
    const QSignalBlocker block(slider_);
    slider_->setRange(delta_->minDelta(), std::max(delta_->minDelta(), delta_->maxDelta()));
    slider_->setValue(delta_->delta());
    label_->setText(delta_->followsCell() ? tr("Δ = j − i = %1 (selected cell)").arg(delta_->delta())
                                          : tr("Δ = %1 (set here)").arg(delta_->delta()));
    follow_->setVisible(!delta_->followsCell());
    setVisible(true);
}

}  // namespace headscope::ui
