#include "DockTitleBar.h"

#include <QDockWidget>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

#include "TypesetText.h"

namespace headscope::ui {

DockTitleBar::DockTitleBar(QDockWidget* dock) : QWidget(dock), dock_(dock) {
    setObjectName(QStringLiteral("dock_title_bar"));
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("dock_title"));
    float_ = new QToolButton(this);
    float_->setObjectName(QStringLiteral("dock_float_button"));
    float_->setAutoRaise(true);
    float_->setToolTip(tr("Float or dock"));
    close_ = new QToolButton(this);
    close_->setObjectName(QStringLiteral("dock_close_button"));
    close_->setAutoRaise(true);
    close_->setToolTip(tr("Close"));
    auto* layout = new QHBoxLayout(this);
    const int margin = style()->pixelMetric(QStyle::PM_DockWidgetTitleMargin, nullptr, dock);
    layout->setContentsMargins(margin + 2, margin, margin, margin);
    layout->setSpacing(1);
    layout->addWidget(title_, 1);
    layout->addWidget(float_);
    layout->addWidget(close_);
    connect(float_, &QToolButton::clicked, dock_, [this]() { dock_->setFloating(!dock_->isFloating()); });
    connect(close_, &QToolButton::clicked, dock_, &QDockWidget::close);
    connect(dock_, &QDockWidget::windowTitleChanged, this, &DockTitleBar::refreshTitle);
    connect(dock_, &QDockWidget::featuresChanged, this, &DockTitleBar::refreshTitle);
    refreshTitle();
}

void DockTitleBar::refreshTitle() {
    typeset::setLabelText(title_, dock_->windowTitle());
    float_->setIcon(style()->standardIcon(QStyle::SP_TitleBarNormalButton, nullptr, dock_));
    close_->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton, nullptr, dock_));
    const auto features = dock_->features();
    title_->setVisible(!collapsed_);
    float_->setVisible(!collapsed_ && features.testFlag(QDockWidget::DockWidgetFloatable));
    close_->setVisible(!collapsed_ && features.testFlag(QDockWidget::DockWidgetClosable));
    updateGeometry();
}

QString DockTitleBar::shownTitle() const { return title_->text(); }

void DockTitleBar::setCollapsed(bool collapsed) {
    if (collapsed == collapsed_) return;
    collapsed_ = collapsed;
    refreshTitle();
}

QSize DockTitleBar::sizeHint() const { return collapsed_ ? QSize(0, 0) : QWidget::sizeHint(); }

QSize DockTitleBar::minimumSizeHint() const { return collapsed_ ? QSize(0, 0) : QWidget::minimumSizeHint(); }

void DockTitleBar::mouseDoubleClickEvent(QMouseEvent* event) {
    if (dock_->features().testFlag(QDockWidget::DockWidgetFloatable)) dock_->setFloating(!dock_->isFloating());
    QWidget::mouseDoubleClickEvent(event);
}

void DockTitleBar::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::StyleChange || event->type() == QEvent::FontChange) refreshTitle();
}

void setDockTitleBarHidden(QDockWidget* dock, bool hidden) {
    if (auto* bar = qobject_cast<DockTitleBar*>(dock->titleBarWidget())) return bar->setCollapsed(hidden);
    if (hidden && !dock->titleBarWidget()) dock->setTitleBarWidget(new QWidget(dock));
    if (!hidden && dock->titleBarWidget()) {
        QWidget* bar = dock->titleBarWidget();
        dock->setTitleBarWidget(nullptr);
        bar->deleteLater();
    }
}

}  // namespace headscope::ui
