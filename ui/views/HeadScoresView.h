#pragma once
// Every head's previous-token score (dashed) and prefix-matching (induction) score (solid) on the
// probe over the steps, one colour per head (HeadColors): a previous-token head in layer 0 and an
// induction head in layer 1 rise together when the circuit forms.

#include <qcustomplot.h>

#include <vector>

#include "train/Trainer.h"

namespace headscope::ui {

class HeadScoresView : public QCustomPlot {
    Q_OBJECT
public:
    explicit HeadScoresView(QWidget* parent = nullptr);

    // heads_per_layer names the heads "L0H1"; graphs are rebuilt when the head count changes.
    void setEvaluations(const std::vector<train::Evaluation>& evaluations, int heads_per_layer);
    // Head index layer * heads + head; previous-token or prefix-matching curve.
    QCPGraph* scoreGraph(int head, bool induction) const;
    // The score axis' labels, longest first: it shows the first whose every line fits its height.
    QStringList scoreLabels() const { return score_labels_; }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void fitAxisLabels();

    int heads_ = 0;
    QStringList score_labels_;
};

}  // namespace headscope::ui
