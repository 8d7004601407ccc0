#pragma once
// The relative offset Delta = j - i that the RoPE views of a rotary layer are drawn at, and the
// work it costs, off the GUI thread. With rotary positions W_QK,i depends on the distance
// between the tokens: W_QK,i(Delta) = W_i^Q R(Delta) (W_g^K)^T (core RotaryCircuits.h). One
// RotaryDelta is shared by the Circuits view, the spectra and the rank table (their Delta
// sliders move together); it follows the selected cell's j - i (the Score tab's default cell
// when none is selected) until the user moves a slider (setDelta), and follows again after
// followCell(). Each change of layer, head or Delta asks the ResultStore for every head's
// W_QK,i(Delta) spectrum, the selected head's product (when small enough to draw) and the
// frequency pair shares, computed in the background once per (layer, head, Delta) and cached: a
// change while a job runs waits, older requests are dropped.
// Non-rotary layers: nothing is computed, and rotary() is false.

#include <QObject>
#include <memory>

#include "Analysis.h"
#include "ResultStoreLink.h"
#include "RotaryCircuits.h"

namespace headscope::ui {

class RotaryDelta : public QObject {
    Q_OBJECT

public:
    explicit RotaryDelta(QObject* parent = nullptr);
    ~RotaryDelta() override;

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setCell(int row, int col);  // (-1, -1): the default cell
    void setDelta(int delta);        // the user's Delta: stops following the cell
    void followCell();               // back to the cell's j - i
    // The largest d_model whose W_QK,i(Delta) is formed (default kMaxWindowCircuitDModel, what the
    // window draws; export forms any size it was asked for).
    void setProductLimit(int max_d_model) { product_limit_ = max_d_model; }
    void setResultStore(ResultStore* results);  // the document's; without one it keeps its own

    bool rotary() const { return analysis_ && analysis_->rotary.enabled(); }
    int delta() const { return delta_; }
    bool followsCell() const { return follow_; }
    int minDelta() const;  // the smallest key position minus the largest query position
    int maxDelta() const;
    // The latest result for the current layer, head and Delta, or nullptr (not computed yet,
    // or not a rotary layer).
    std::shared_ptr<const RotaryDeltaResult> result() const;
    // result() when it was computed for a's layer too (a view may see a new layer first).
    std::shared_ptr<const RotaryDeltaResult> resultFor(const std::shared_ptr<const Analysis>& a) const {
        auto r = result();
        return r && a && sameLayer(*r->analysis, *a) ? r : nullptr;
    }
    // Blocks until the worker is idle and its result delivered (tests and export).
    void waitForResult() { results_->wait(); }
    // Jobs asked for and jobs run: a burst of changes runs the first and the latest only.
    long long jobsRequested() { return results_->requested(ResultStore::Kind::RotaryDelta); }
    long long jobsStarted() { return results_->computed(ResultStore::Kind::RotaryDelta); }

signals:
    void deltaChanged(int delta);  // also when the range changed (a new layer)
    void resultReady(std::shared_ptr<const headscope::ui::RotaryDeltaResult> result);

private:
    void updateFromCell();
    void start();

    std::shared_ptr<const Analysis> analysis_;
    int head_ = 0, row_ = -1, col_ = -1, delta_ = 0;
    bool follow_ = true;
    int product_limit_;
    std::shared_ptr<const RotaryDeltaResult> result_;
    ResultStoreLink results_{this, {ResultStore::Kind::RotaryDelta}, [this]() { start(); }};  // last: destroyed first
};

}  // namespace headscope::ui
