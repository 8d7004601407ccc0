#pragma once
// Connects a view to the document (Session) through whatever the view offers (ViewHooks):
// views live in headscope_views and know no Session, so this is how each of them follows the
// analysis, the selected head, the head's circuits and the cell, and how its clicks and hovers
// reach the selection. The main window binds each view once; it never pushes data. (The view
// options reach the views through the window's applyViewOptions, with set_options.)

#include <memory>

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
    if (auto f = hooks.set_results) f(session->results());
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

template <typename View>
void bindView(Session* session, View* view) {
    bindHooks(session, view, hooksFor(view));
}

}  // namespace headscope::ui
