#pragma once
// What a view that is not on the base class (AttentionView) offers the document, without either
// knowing the other: its setters it follows the document by and its signals the selection listens
// to, as plain functions. hooksFor reads them off such a view class (a view has what it has:
// setAnalysis, setHead, setCircuits, setCell, setOptions, cellClicked, headClicked, hovered); the
// window's bindView (ui/app/ViewBinding.h) connects them to the Session. These are the views the
// window composes its docks and the Heads tab of; the registry's views are AttentionViews.

#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "Analysis.h"
#include "Circuits.h"
#include "ViewOptions.h"

class QCustomPlot;
class QWidget;

namespace headscope::ui {

struct ViewHooks {
    // The document -> the view; empty where the view has no such setter.
    std::function<void(std::shared_ptr<const Analysis>)> set_analysis, set_forward_results;
    std::function<void(int)> set_head;
    std::function<void(std::shared_ptr<const Circuits>)> set_circuits;
    std::function<void(int, int)> set_cell;
    std::function<void(const ViewOptions&)> set_options;
    std::function<QCustomPlot*()> plot;  // the plot Edit > Copy and "this tab" export save, if one
    std::function<void()> replot_now;    // draws now (before a screenshot), if the view defers it
    // The view -> the selection: each connects f to the view's signal for as long as context lives.
    std::function<void(QObject* context, std::function<void(int, int)> f)> on_cell_clicked;  // (row, col)
    std::function<void(QObject* context, std::function<void(int)> f)> on_head_clicked;
    std::function<void(QObject* context, std::function<void(const QString&)> f)> on_hovered;
};

template <typename View>
ViewHooks hooksFor(View* view) {
    ViewHooks h;
    if constexpr (requires { view->setAnalysis(std::shared_ptr<const Analysis>()); })
        h.set_analysis = [view](std::shared_ptr<const Analysis> a) { view->setAnalysis(std::move(a)); };
    if constexpr (requires { view->setForwardResults(std::shared_ptr<const Analysis>()); })
        h.set_forward_results = [view](std::shared_ptr<const Analysis> a) { view->setForwardResults(std::move(a)); };
    if constexpr (requires { view->setHead(0); }) h.set_head = [view](int head) { view->setHead(head); };
    if constexpr (requires { view->setCircuits(std::shared_ptr<const Circuits>()); })
        h.set_circuits = [view](std::shared_ptr<const Circuits> c) { view->setCircuits(std::move(c)); };
    if constexpr (requires { view->setCell(0, 0); }) h.set_cell = [view](int row, int col) { view->setCell(row, col); };
    if constexpr (requires { view->setOptions(ViewOptions()); })
        h.set_options = [view](const ViewOptions& o) { view->setOptions(o); };
    if constexpr (requires { view->plot(); }) h.plot = [view]() -> QCustomPlot* { return view->plot(); };
    if constexpr (requires { view->replotNow(); }) h.replot_now = [view]() { view->replotNow(); };
    // Only a (row, col) signal: HeadGridView's cellClicked(head, row, col) is wired by the window.
    if constexpr (requires { static_cast<void (View::*)(int, int)>(&View::cellClicked); })
        h.on_cell_clicked = [view](QObject* context, std::function<void(int, int)> f) {
            QObject::connect(view, static_cast<void (View::*)(int, int)>(&View::cellClicked), context, std::move(f));
        };
    if constexpr (requires { &View::headClicked; })
        h.on_head_clicked = [view](QObject* context, std::function<void(int)> f) {
            QObject::connect(view, &View::headClicked, context, std::move(f));
        };
    if constexpr (requires { &View::hovered; })
        h.on_hovered = [view](QObject* context, std::function<void(const QString&)> f) {
            QObject::connect(view, &View::hovered, context, std::move(f));
        };
    return h;
}

}  // namespace headscope::ui
