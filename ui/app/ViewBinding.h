#pragma once
// Connects a view to the document (Session) through whatever the view offers: views live in
// headscope_views and know no Session, so this one template is how each of them follows the
// analysis, the selected head, the head's circuits and the view options, and how its clicks and
// hovers reach the selection. The main window calls bindView once per view; it never pushes data.

#include <memory>

#include "Session.h"
#include "ViewOptions.h"

namespace headscope::ui {

template <typename View>
void bindView(Session* session, View* view) {
    if constexpr (requires { view->setAnalysis(std::shared_ptr<const Analysis>()); }) {
        QObject::connect(session, &Session::changed, view, [view](std::shared_ptr<const Analysis> a) { view->setAnalysis(a); });
    }
    if constexpr (requires { view->setForwardResults(std::shared_ptr<const Analysis>()); }) {
        QObject::connect(session, &Session::forwardReady, view,
                         [view](std::shared_ptr<const Analysis> a) { view->setForwardResults(a); });
    }
    if constexpr (requires { view->setHead(0); }) {
        QObject::connect(session, &Session::headChanged, view, [view](int head) { view->setHead(head); });
        view->setHead(session->head());
    }
    if constexpr (requires { view->setCircuits(std::shared_ptr<const Circuits>()); }) {
        QObject::connect(session, &Session::circuitsReady, view,
                         [view](std::shared_ptr<const Circuits> c) { view->setCircuits(c); });
        view->setCircuits(session->circuits());
    }
    if constexpr (requires { view->setCell(0, 0); }) {
        QObject::connect(session, &Session::cellChanged, view, [view](int row, int col) { view->setCell(row, col); });
        view->setCell(session->cellRow(), session->cellColumn());
    }
    // Only a (row, col) signal: HeadGridView's cellClicked(head, row, col) is wired by the window.
    if constexpr (requires { static_cast<void (View::*)(int, int)>(&View::cellClicked); })
        QObject::connect(view, static_cast<void (View::*)(int, int)>(&View::cellClicked), session, &Session::setCell);
    if constexpr (requires { &View::headClicked; })
        QObject::connect(view, &View::headClicked, session, &Session::setHead);
    if constexpr (requires { &View::hovered; })
        QObject::connect(view, &View::hovered, session, &Session::setHover);
    if (session->analysis()) {
        if constexpr (requires { view->setAnalysis(std::shared_ptr<const Analysis>()); }) view->setAnalysis(session->analysis());
    }
}

}  // namespace headscope::ui
