#include "AttentionView.h"

#include <algorithm>

#include "DeferredRefresh.h"
#include "ResultStoreLink.h"

namespace headscope::ui {

AttentionView::AttentionView(Inputs follows, QWidget* parent)
    : QWidget(parent),
      follows_(follows),
      deferred_(new DeferredRefresh(this, [this]() { refresh(); })),
      results_(std::make_unique<ResultStoreLink>(this, std::initializer_list<ResultKind>{}, [this]() { requestRefresh(); })) {}

AttentionView::~AttentionView() {
    results_->set(nullptr);  // no refresh() once the view's own part is gone
}

void AttentionView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    requestRefresh();
}

void AttentionView::setHead(int head) {
    head_ = std::max(0, head);
    requestRefresh();
}

void AttentionView::setCell(int row, int col) {
    cell_row_ = row;
    cell_col_ = col;
    requestRefresh();
}

void AttentionView::setCircuits(std::shared_ptr<const Circuits> circuits) {
    circuits_ = std::move(circuits);
    requestRefresh();
}

void AttentionView::setOptions(const ViewOptions& options) {
    options_ = options;
    requestRefresh();
}

void AttentionView::setResultStore(ResultStore* results) {
    results_->set(results);
    requestRefresh();
}

void AttentionView::drawsResults(std::initializer_list<ResultKind> kinds) { results_->setKinds(kinds); }

ResultStore& AttentionView::results() { return **results_; }

void AttentionView::requestRefresh() { deferred_->request(); }

bool AttentionView::refreshPending() const { return deferred_->pending(); }

}  // namespace headscope::ui
