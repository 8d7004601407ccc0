#include "TypesetToolTips.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QMenu>
#include <QTabBar>
#include <QTextDocument>
#include <QToolTip>

#include "TypesetText.h"

namespace headscope::ui {

namespace {
constexpr const char* kVerbatim = "headscope_verbatim_tool_tip";
}

void TypesetToolTips::setVerbatim(QWidget* widget) { widget->setProperty(kVerbatim, true); }

void TypesetToolTips::install() {
    if (!qApp || qApp->findChild<TypesetToolTips*>(QString(), Qt::FindDirectChildrenOnly)) return;
    qApp->installEventFilter(new TypesetToolTips(qApp));
}

QString TypesetToolTips::toolTipAt(QWidget* widget, const QPoint& pos) {
    if (auto* bar = qobject_cast<QTabBar*>(widget)) {
        const int tab = bar->tabAt(pos);
        if (tab >= 0 && !bar->tabToolTip(tab).isEmpty()) return bar->tabToolTip(tab);
    }
    if (auto* menu = qobject_cast<QMenu*>(widget)) {
        QAction* action = menu->actionAt(pos);
        return action && menu->toolTipsVisible() ? action->toolTip() : QString();
    }
    // An item view's viewport: the item's or the header section's ToolTipRole, as the view shows it.
    if (auto* view = qobject_cast<QAbstractItemView*>(widget->parentWidget()); view && view->viewport() == widget && view->model()) {
        if (auto* header = qobject_cast<QHeaderView*>(view)) {
            const int section = header->logicalIndexAt(pos);
            if (section >= 0) return view->model()->headerData(section, header->orientation(), Qt::ToolTipRole).toString();
            return {};
        }
        const QModelIndex index = view->indexAt(pos);
        if (index.isValid()) return index.data(Qt::ToolTipRole).toString();
        return {};
    }
    return widget->property(kVerbatim).toBool() ? QString() : widget->toolTip();  // verbatim: Qt's own
}

bool TypesetToolTips::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ToolTip || !watched->isWidgetType()) return false;
    auto* widget = static_cast<QWidget*>(watched);
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(widget, help->pos());
    if (Qt::mightBeRichText(text) || !typeset::hasNotation(text)) return false;  // Qt's own
    QToolTip::showText(help->globalPos(), typeset::richText(text), widget, QRect(), widget->toolTipDuration());
    return true;
}

}  // namespace headscope::ui
