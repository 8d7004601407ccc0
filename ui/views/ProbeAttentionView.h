#pragma once
// Every head's attention on the training run's probe sequence (a repeated string), as small
// heatmaps (queries down, keys across, viridis 0-1), one per layer and head, titled with the
// head's previous-token and induction scores; a slider scrubs back through the saved snapshots
// (it follows the newest one until moved back). A previous-token head is the diagonal just below
// the main one; an induction head the stripe L - 1 below it, in the second copy.

#include <QWidget>
#include <memory>
#include <vector>

#include "train/Trainer.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPTextElement;
class QLabel;
class QSlider;

namespace headscope::ui {

class ProbeAttentionView : public QWidget {
    Q_OBJECT
public:
    explicit ProbeAttentionView(QWidget* parent = nullptr);

    void setRun(const std::vector<std::shared_ptr<const train::AttentionSnapshot>>& snapshots,
                const std::vector<train::Evaluation>& evaluations, int layers, int heads);
    QSlider* slider() const { return slider_; }
    // The snapshot on screen (nullptr before the first).
    const train::AttentionSnapshot* shown() const;
    QCPColorMap* map(int index) const { return index < int(maps_.size()) ? maps_[std::size_t(index)] : nullptr; }
    // The heads in one row (a wide, low plot) rather than a row per layer.
    bool inOneRow() const { return one_row_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild(int layers, int heads, int n);
    void placeMaps(bool force);
    void show(int index);

    QCustomPlot* plot_;
    QSlider* slider_;
    QLabel* label_;
    std::vector<QCPColorMap*> maps_;
    std::vector<QCPTextElement*> titles_;
    std::vector<QCPAxisRect*> rects_;
    bool one_row_ = false;
    std::vector<std::shared_ptr<const train::AttentionSnapshot>> snapshots_;
    std::vector<train::Evaluation> evaluations_;
    int layers_ = 0, heads_ = 0, n_ = 0;
};

}  // namespace headscope::ui
