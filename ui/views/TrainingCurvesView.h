#pragma once
// The Training tab's curves over the steps (issue 23): held-out loss on the whole sequence and on
// the repeated half, the training-batch loss (left axis, nats), and accuracy on the repeated half
// (right axis, 0-100 %). The phase change shows as a step down in the repeated-half loss.

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
};

}  // namespace headscope::ui
