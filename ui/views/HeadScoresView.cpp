#include "HeadScoresView.h"

#include <algorithm>

#include "HeadColors.h"
#include "LonePoints.h"
#include "TextFit.h"

namespace headscope::ui {

HeadScoresView::HeadScoresView(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("head_scores"));
    setMinimumSize(260, 180);
    xAxis->setLabel(tr("step"));
    // Whole in the height the axis has: one line, else two, else fewer words.
    score_labels_ = {tr("head score on the probe"), tr("head score\non the probe"), tr("head\nscore"), tr("score")};
    yAxis->setLabel(score_labels_.front());
    yAxis->setRange(0, 1);
    legend->setFont(font());
    fit::legendBelow(this, 4);
}

void HeadScoresView::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    fitAxisLabels();
}

void HeadScoresView::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::FontChange) fitAxisLabels();
}

void HeadScoresView::fitAxisLabels() {
    yAxis->setLabel(score_labels_.front());
    fit::layOut(this);
    fit::fitAxisLabel(yAxis, score_labels_);
    fit::fitTickCount(yAxis);
}

QCPGraph* HeadScoresView::scoreGraph(int head, bool induction) const {
    return graph(2 * head + (induction ? 1 : 0));
}

void HeadScoresView::setEvaluations(const std::vector<train::Evaluation>& evaluations, int heads_per_layer) {
    const int heads = evaluations.empty() ? 0 : int(evaluations.front().previous_token.size());
    if (heads != heads_) {
        clearGraphs();
        for (int h = 0; h < heads; ++h) {
            const QString name = QStringLiteral("L%1H%2").arg(h / heads_per_layer).arg(h % heads_per_layer);
            QCPGraph* previous = addGraph();
            previous->setName(tr("%1 prev").arg(name));
            previous->setPen(QPen(headColor(h), 1.5, Qt::DashLine));
            QCPGraph* induction = addGraph();
            induction->setName(tr("%1 ind").arg(name));
            induction->setPen(QPen(headColor(h), 2.5));
        }
        heads_ = heads;
    }
    for (int h = 0; h < heads; ++h) {
        QVector<double> steps, previous, induction;
        for (const train::Evaluation& e : evaluations) {
            steps << double(e.step);
            previous << e.previous_token[std::size_t(h)];
            induction << e.prefix_matching[std::size_t(h)];
        }
        scoreGraph(h, false)->setData(steps, previous, true);
        scoreGraph(h, true)->setData(steps, induction, true);
    }
    dotLonePoints(this);  // step 0: a dot on each curve
    xAxis->setRange(0, std::max(10.0, evaluations.empty() ? 10.0 : double(evaluations.back().step)));
    replot(rpQueuedReplot);
}

}  // namespace headscope::ui
