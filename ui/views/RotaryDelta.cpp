#include "RotaryDelta.h"

#include <algorithm>
#include <tuple>

#include "Circuits.h"
#include "ScoreBreakdown.h"

namespace headscope::ui {

RotaryDelta::RotaryDelta(QObject* parent) : QObject(parent), product_limit_(kMaxWindowCircuitDModel) {
    qRegisterMetaType<std::shared_ptr<const RotaryDeltaResult>>("std::shared_ptr<const headscope::ui::RotaryDeltaResult>");
}

RotaryDelta::~RotaryDelta() = default;

void RotaryDelta::setResultStore(ResultStore* results) {
    results_.set(results);
    start();
}

void RotaryDelta::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    const bool same_layer = analysis_ && analysis && sameLayer(*analysis_, *analysis) &&
                            analysis_->rotary.inverse_frequencies.size() == analysis->rotary.inverse_frequencies.size() &&
                            analysis_->rotary.inverse_frequencies == analysis->rotary.inverse_frequencies &&
                            analysis_->config.rank_rtol == analysis->config.rank_rtol;
    analysis_ = std::move(analysis);
    const int before = delta_;
    updateFromCell();
    if (!same_layer || delta_ != before) start();
    emit deltaChanged(delta_);
}

void RotaryDelta::setHead(int head) {
    if (head == head_) return;
    head_ = std::max(0, head);
    updateFromCell();
    start();
    emit deltaChanged(delta_);
}

void RotaryDelta::setCell(int row, int col) {
    row_ = row;
    col_ = col;
    const int before = delta_;
    updateFromCell();
    if (delta_ != before) {
        start();
        emit deltaChanged(delta_);
    }
}

void RotaryDelta::setDelta(int delta) {
    follow_ = false;
    delta = std::clamp(delta, minDelta(), std::max(minDelta(), maxDelta()));
    if (delta == delta_) return;
    delta_ = delta;
    start();
    emit deltaChanged(delta_);
}

void RotaryDelta::followCell() {
    follow_ = true;
    const int before = delta_;
    updateFromCell();
    if (delta_ != before) start();
    emit deltaChanged(delta_);
}

int RotaryDelta::minDelta() const {
    if (!analysis_ || analysis_->nQuery() == 0 || analysis_->nKeyValue() == 0) return 0;
    int lo = 1 << 30;
    for (int j : {0, analysis_->nKeyValue() - 1})
        for (int i : {0, analysis_->nQuery() - 1}) lo = std::min(lo, cellDelta(analysis_->rotary, i, j));
    return lo;
}

int RotaryDelta::maxDelta() const {
    if (!analysis_ || analysis_->nQuery() == 0 || analysis_->nKeyValue() == 0) return 0;
    int hi = -(1 << 30);
    for (int j : {0, analysis_->nKeyValue() - 1})
        for (int i : {0, analysis_->nQuery() - 1}) hi = std::max(hi, cellDelta(analysis_->rotary, i, j));
    return hi;
}

void RotaryDelta::updateFromCell() {
    if (!analysis_ || analysis_->weights().heads == 0 || analysis_->nQuery() == 0) return;
    if (follow_) {
        int row = row_, col = col_;
        if (row < 0 || col < 0 || row >= analysis_->nQuery() || col >= analysis_->nKeyValue())
            std::tie(row, col) = defaultCell(*analysis_, std::clamp(head_, 0, analysis_->weights().heads - 1));
        delta_ = cellDelta(analysis_->rotary, row, col);
    }
    delta_ = std::clamp(delta_, minDelta(), std::max(minDelta(), maxDelta()));
}

std::shared_ptr<const RotaryDeltaResult> RotaryDelta::result() const {
    if (!result_ || !analysis_ || !rotary()) return nullptr;
    const RotaryDeltaResult& r = *result_;
    const bool current = r.analysis && sameLayer(*r.analysis, *analysis_) && r.circuits.delta == delta_ &&
                         r.circuits.head == std::clamp(head_, 0, analysis_->weights().heads - 1);
    return current ? result_ : nullptr;
}

void RotaryDelta::start() {
    if (!rotary()) return;
    const int head = std::clamp(head_, 0, analysis_->weights().heads - 1);
    // Cached, or computed in the background: its arrival calls start() again, which finds it.
    const ResultStore::Result<RotaryDeltaResult> result = results_->rotaryDelta(analysis_, head, delta_, product_limit_);
    if (!result || *result == result_) return;
    result_ = *result;
    if (result_) emit resultReady(result_);  // null: out of memory or dimensions that do not fit; the views say so
}

}  // namespace headscope::ui
