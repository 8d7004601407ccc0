#pragma once
// What every view of the document shares (issue 24): the analysis on screen, the selected head,
// the selected cell, the selected head's circuits and the view options, and a refresh that waits
// while the view is hidden (a slider drag costs only the views on screen). A view says in its
// constructor which of these it follows; the window's binding (ui/app/ViewBinding.h) connects
// exactly those to the document through the virtual setters below, so a view that renames an
// override fails to compile. A setter stores its value and asks for a refresh; a view overrides
// one to do more (and calls this class's). The view draws itself in refresh().
// A view that draws a derived result (the Q-K map, a score breakdown ...) reads it from the
// document's ResultStore, which the binding hands over (setResultStore), and says in its
// constructor which kinds it draws (drawsResults): one arriving refreshes the view.

#include <QFlags>
#include <QString>
#include <QWidget>
#include <initializer_list>
#include <memory>

#include "Analysis.h"
#include "Circuits.h"
#include "ResultKind.h"
#include "ViewOptions.h"

class QCustomPlot;

namespace headscope::ui {

class DeferredRefresh;
class ResultStore;
class ResultStoreLink;

class AttentionView : public QWidget {
    Q_OBJECT

public:
    // What of the document a view follows (the view options reach every view).
    enum Input { FollowsAnalysis = 1, FollowsHead = 2, FollowsCell = 4, FollowsCircuits = 8 };
    Q_DECLARE_FLAGS(Inputs, Input)

    AttentionView(Inputs follows, QWidget* parent);
    ~AttentionView() override;
    Inputs follows() const { return follows_; }

    // The document -> the view.
    virtual void setAnalysis(std::shared_ptr<const Analysis> analysis);
    virtual void setHead(int head);  // negative: head 0; refresh() clamps it to the heads there are
    virtual void setCell(int row, int col);
    virtual void setCircuits(std::shared_ptr<const Circuits> circuits);
    virtual void setOptions(const ViewOptions& options);
    // The document's results; a view built alone (export, tests) keeps a store of its own.
    void setResultStore(ResultStore* results);
    // Drawn for a file (export): no "hover" or "click" hints, which a picture cannot follow.
    void setForFile(bool for_file) { for_file_ = for_file; requestRefresh(); }
    bool forFile() const { return for_file_; }

    const std::shared_ptr<const Analysis>& analysis() const { return analysis_; }
    int head() const { return head_; }
    int cellRow() const { return cell_row_; }
    int cellColumn() const { return cell_col_; }
    const std::shared_ptr<const Circuits>& circuits() const { return circuits_; }
    const ViewOptions& options() const { return options_; }

    // The plot Edit > Copy and "this tab" export save, or nullptr for a view without one.
    virtual QCustomPlot* plot() const { return nullptr; }
    // Draws now, shown or not (export, screenshots, tests).
    virtual void replotNow() { refresh(); }

signals:
    // The view -> the selection (a view emits those it has).
    void cellClicked(int row, int col);
    void headClicked(int head);
    void hovered(const QString& text);

protected:
    // Draws the view from the state below.
    virtual void refresh() = 0;
    // refresh() at once while the view is visible, else when it is next shown.
    void requestRefresh();
    bool refreshPending() const;
    // Constructor: the kinds of result this view draws (a result of one arriving refreshes it).
    void drawsResults(std::initializer_list<ResultKind> kinds);
    // The store results are read from: the document's, or the view's own.
    ResultStore& results();

    std::shared_ptr<const Analysis> analysis_;
    std::shared_ptr<const Circuits> circuits_;  // the selected head's W_QK and W_OV, or nullptr
    ViewOptions options_;
    bool for_file_ = false;
    int head_ = 0;
    int cell_row_ = -1, cell_col_ = -1;  // (-1, -1): the view's default cell

private:
    Inputs follows_;
    DeferredRefresh* deferred_ = nullptr;
    std::unique_ptr<ResultStoreLink> results_;
};

}  // namespace headscope::ui

// At global scope, beside QCustomPlot's (an operator| in headscope::ui would hide them).
Q_DECLARE_OPERATORS_FOR_FLAGS(headscope::ui::AttentionView::Inputs)
