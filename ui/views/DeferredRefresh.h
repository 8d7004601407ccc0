#pragma once
// Views in a hidden tab do no work. request() refreshes at once while the widget is visible
// and otherwise remembers it, refreshing when the widget is next shown: a slider drag costs
// only the views on screen. Export calls the view's refresh directly.

#include <QEvent>
#include <QObject>
#include <QWidget>
#include <functional>

namespace headscope::ui {

class DeferredRefresh : public QObject {
public:
    DeferredRefresh(QWidget* widget, std::function<void()> refresh)
        : QObject(widget), widget_(widget), refresh_(std::move(refresh)) {
        widget->installEventFilter(this);
    }

    void request() {
        if (widget_->isVisible()) {
            pending_ = false;
            refresh_();
        } else {
            pending_ = true;
        }
    }
    bool pending() const { return pending_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == widget_ && event->type() == QEvent::Show && pending_) {
            pending_ = false;
            refresh_();
        }
        return false;
    }

private:
    QWidget* widget_;
    std::function<void()> refresh_;
    bool pending_ = false;
};

}  // namespace headscope::ui
