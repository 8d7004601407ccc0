#include "DockTitleBar.h"

#include <QDockWidget>

namespace headscope::ui {

void setDockTitleBarHidden(QDockWidget* dock, bool hidden) {
    if (hidden && !dock->titleBarWidget()) dock->setTitleBarWidget(new QWidget(dock));
    if (!hidden && dock->titleBarWidget()) {
        QWidget* bar = dock->titleBarWidget();
        dock->setTitleBarWidget(nullptr);
        bar->deleteLater();
    }
}

}  // namespace headscope::ui
