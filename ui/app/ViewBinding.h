#pragma once
// Connects a view to the document (Session): views live in headscope_views and know no Session,
// so this is how each of them follows the analysis, the selected head, the head's circuits and
// the cell, and how its clicks and hovers reach the selection. A view on the base class
// (AttentionView: every registry view) is bound through its virtual setters, for what it says it
// follows, and follows the document's view options; the views the window composes its docks and
// the Heads tab of are bound by what they offer (ViewHooks), their options set by the window's
// applyViewOptions. The main window binds each view once; it never pushes data.

#include <concepts>
#include <memory>

#include "AttentionView.h"
#include "Session.h"
#include "ViewHooks.h"
#include "ViewOptions.h"

namespace headscope::ui {

// Connects hooks (of view, which is the connections' context) to session.
inline void bindHooks(Session* session, QObject* view, const ViewHooks& hooks) {
    if (auto f = hooks.set_analysis)
        QObject::connect(session, &Session::changed, view, [f](std::shared_ptr<const Analysis> a) { f(std::move(a)); });
    if (auto f = hooks.set_forward_results)
        QObject::connect(session, &Session::forwardReady, view, [f](std::shared_ptr<const Analysis> a) { f(std::move(a)); });
    if (auto f = hooks.set_head) {
        QObject::connect(session, &Session::headChanged, view, [f](int head) { f(head); });
        f(session->head());
    }
    if (auto f = hooks.set_circuits) {
        QObject::connect(session, &Session::circuitsReady, view, [f](std::shared_ptr<const Circuits> c) { f(std::move(c)); });
        f(session->circuits());
    }
    if (auto f = hooks.set_cell) {
        QObject::connect(session, &Session::cellChanged, view, [f](int row, int col) { f(row, col); });
        f(session->cellRow(), session->cellColumn());
    }
    if (hooks.on_cell_clicked) hooks.on_cell_clicked(session, [session](int row, int col) { session->setCell(row, col); });
    if (hooks.on_head_clicked) hooks.on_head_clicked(session, [session](int head) { session->setHead(head); });
    if (hooks.on_hovered) hooks.on_hovered(session, [session](const QString& text) { session->setHover(text); });
    if (hooks.set_analysis && session->analysis()) hooks.set_analysis(session->analysis());
}

// Connects view, a view on the base class, to session: the view options, the inputs the view
// follows, and its clicks and hovers.
inline void bindView(Session* session, AttentionView* view) {
    QObject::connect(session, &Session::viewOptionsChanged, view, &AttentionView::setOptions);
    view->setOptions(session->viewOptions());
    view->setResultStore(session->results());  // what it draws of the derived results, if any
    const AttentionView::Inputs follows = view->follows();
    if (follows & AttentionView::FollowsAnalysis)
        QObject::connect(session, &Session::changed, view, &AttentionView::setAnalysis);
    if (follows & AttentionView::FollowsHead) {
        QObject::connect(session, &Session::headChanged, view, &AttentionView::setHead);
        view->setHead(session->head());
    }
    if (follows & AttentionView::FollowsCircuits) {
        QObject::connect(session, &Session::circuitsReady, view, &AttentionView::setCircuits);
        view->setCircuits(session->circuits());
    }
    if (follows & AttentionView::FollowsCell) {
        QObject::connect(session, &Session::cellChanged, view, &AttentionView::setCell);
        view->setCell(session->cellRow(), session->cellColumn());
    }
    QObject::connect(view, &AttentionView::cellClicked, session, &Session::setCell);
    QObject::connect(view, &AttentionView::headClicked, session, &Session::setHead);
    QObject::connect(view, &AttentionView::hovered, session, &Session::setHover);
    if ((follows & AttentionView::FollowsAnalysis) && session->analysis()) view->setAnalysis(session->analysis());
}

// Any other view: by the setters and signals it has.
template <typename View>
    requires(!std::derived_from<View, AttentionView>)
void bindView(Session* session, View* view) {
    bindHooks(session, view, hooksFor(view));
}

}  // namespace headscope::ui
