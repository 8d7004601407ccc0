#include "RecentFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>

#include "Setting.h"

namespace headscope::ui {

namespace {
const Setting<QStringList> kRecentFiles{"files/recent", QStringList()};
}

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) { rebuild(); }

QStringList RecentFiles::files() const { return kRecentFiles.get(); }

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles) list.removeLast();
    kRecentFiles.set(list);
    rebuild();
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    kRecentFiles.set(list);
    rebuild();
}

void RecentFiles::clear() {
    kRecentFiles.set({});
    rebuild();
}

void RecentFiles::rebuild() {
    menu_->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString& path = list[i];
        // &1 ... &8: each entry has a mnemonic; the full path is in the tooltip and status tip.
        QAction* action = menu_->addAction(QStringLiteral("&%1  %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path]() { emit openRequested(path); });
    }
    if (!list.isEmpty()) {
        menu_->addSeparator();
        menu_->addAction(tr("&Clear list"), this, &RecentFiles::clear);
    }
    menu_->setEnabled(!list.isEmpty());
}

}  // namespace headscope::ui
