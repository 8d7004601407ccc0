#include "HeadMenus.h"

#include <QAbstractScrollArea>
#include <QMenu>

#include "AttributionView.h"
#include "HeadGridView.h"
#include "ModelOverviewView.h"
#include "RankTableView.h"
#include "Session.h"

namespace headscope::ui {

void addHeadActions(QMenu* menu, Session* session, int layer, int head) {
    if (!session->canAblate()) {
        QAction* none = menu->addAction(QObject::tr("Knocking heads out needs weights: wait for the first update"));
        none->setEnabled(false);
        return;
    }
    // A model's head is "layer.head"; a single layer's (generated or loaded) is its number alone.
    const QString name = session->source().model ? QStringLiteral("%1.%2").arg(layer).arg(head) : QString::number(head);
    if (session->ablation().contains(layer, head)) {
        QAction* restore = menu->addAction(QObject::tr("Restore head %1").arg(name));
        restore->setObjectName(QStringLiteral("restore_head"));
        QObject::connect(restore, &QAction::triggered, session, [session, layer, head]() { session->restore(layer, head); });
    } else {
        const bool others = !session->ablation().empty();
        const model::AblationMode current = session->ablation().mode;
        const auto knock = [&](model::AblationMode mode, const QString& text, const char* id) {
            QAction* action = menu->addAction(text);
            action->setObjectName(QString::fromLatin1(id));
            // One mode for every head that is off: choosing the other one changes theirs too.
            if (others && mode != current) action->setToolTip(QObject::tr("The heads already off switch to this mode too."));
            QObject::connect(action, &QAction::triggered, session, [session, layer, head, mode]() {
                model::Ablation a = session->ablation();
                a.mode = mode;
                a.add({layer, head});
                session->setAblation(std::move(a));
            });
        };
        knock(model::AblationMode::Zero, QObject::tr("Knock out head %1 (zero its output)").arg(name), "knock_out_zero");
        knock(model::AblationMode::Mean, QObject::tr("Knock out head %1 (its mean output over the tokens)").arg(name),
              "knock_out_mean");
        menu->setToolTipsVisible(true);
    }
    if (!session->ablation().empty()) {
        QAction* all = menu->addAction(QObject::tr("Restore every head (%1 off)").arg(session->ablation().heads.size()));
        all->setObjectName(QStringLiteral("restore_all_heads"));
        QObject::connect(all, &QAction::triggered, session, &Session::restoreAll);
    }
}

namespace {

template <typename View, typename Locate>
void install(View* view, Session* session, Locate locate) {
    if (!view) return;
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, session, locate](const QPoint& pos) {
        int layer = 0, head = 0;
        if (!locate(pos, &layer, &head)) return;
        QMenu menu(view);
        addHeadActions(&menu, session, layer, head);
        // A scroll area (the rank table) reports pos in its viewport's coordinates.
        const auto* area = qobject_cast<QAbstractScrollArea*>(view);
        menu.exec((area ? area->viewport() : static_cast<QWidget*>(view))->mapToGlobal(pos));
    });
}

}  // namespace

void installHeadMenus(Session* session, HeadGridView* grid, ModelOverviewView* overview, RankTableView* ranks,
                      AttributionView* attribution) {
    install(grid, session, [grid, session](const QPoint& pos, int* layer, int* head) {
        *head = grid->headAt(pos);
        *layer = session->source().layer;
        return *head >= 0;
    });
    install(overview, session, [overview](const QPoint& pos, int* layer, int* head) { return overview->panelAt(pos, layer, head); });
    install(ranks, session, [ranks, session](const QPoint& pos, int* layer, int* head) {
        *head = ranks->rowAt(pos.y());
        *layer = session->source().layer;
        return *head >= 0;
    });
    install(attribution, session, [attribution](const QPoint& pos, int* layer, int* head) {
        return attribution->headAt(pos, layer, head);
    });
}

}  // namespace headscope::ui
