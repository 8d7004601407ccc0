#pragma once
// The Training tab's curves over the steps (issue 23): held-out loss on the whole sequence and on
// the repeated half, the training-batch loss (left axis, nats), and accuracy on the repeated half
// (right axis, 0-100 %). The phase change shows as a step down in the repeated-half loss.
// The legend is a row of its own under the plot (issue 21): as many entries side by side as fit
// the width whole, one below the other where they do not; only where even one entry is wider
// than the plot are the names shortened, and then the tool tip gives them in full.

#include <qcustomplot.h>

#include <vector>

#include "train/Trainer.h"

namespace headscope::ui {

class TrainingCurvesView : public QCustomPlot {
    Q_OBJECT
public:
    enum Curve { Loss = 0, RepeatedLoss = 1, TrainLoss = 2, RepeatedAccuracy = 3 };

    explicit TrainingCurvesView(QWidget* parent = nullptr);

    // Redraws from the evaluations (queued replot).
    void setEvaluations(const std::vector<train::Evaluation>& evaluations);
    QCPGraph* curve(Curve which) const { return graph(int(which)); }
    // The curve's name in full (the legend may show it shortened on a very narrow plot).
    QString curveName(Curve which) const { return names_[std::size_t(which)]; }
    // The legend's entries side by side (1 to 4) at the current width.
    int legendColumns() const { return legend->wrap(); }
    // The vertical axes' labels, longest first: each axis shows the first whose every line fits
    // its height (fit::fitAxisLabel).
    QStringList lossLabels() const { return loss_labels_; }
    QStringList accuracyLabels() const { return accuracy_labels_; }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void fitLegend(int width);
    void fitAxisLabels();

    std::vector<QString> names_;
    QStringList loss_labels_, accuracy_labels_;
};

}  // namespace headscope::ui
