#include "TrainingCurvesView.h"

#include "TextFit.h"

namespace headscope::ui {

TrainingCurvesView::TrainingCurvesView(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("training_curves"));
    setMinimumSize(260, 180);
    const struct {
        const char* name;
        QColor color;
        Qt::PenStyle style;
        bool right;
    } curves[] = {{"loss", QColor(0, 114, 178), Qt::SolidLine, false},
                  {"repeated half", QColor(213, 94, 0), Qt::SolidLine, false},
                  {"batch", QColor(150, 150, 150), Qt::DotLine, false},
                  {"accuracy (right)", QColor(0, 158, 115), Qt::DashLine, true}};
    for (const auto& c : curves) {
        QCPGraph* g = addGraph(xAxis, c.right ? yAxis2 : yAxis);
        g->setName(tr(c.name));
        g->setPen(QPen(c.color, 2, c.style));
    }
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("loss (nats)"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("accuracy, repeated half (%)"));
    yAxis2->setRange(0, 100);
    legend->setFont(font());
    fit::legendBelow(this, 2);
}

void TrainingCurvesView::setEvaluations(const std::vector<train::Evaluation>& evaluations) {
    QVector<double> steps, loss, repeated, train_steps, train_loss, accuracy;
    double top = 0;
    for (const train::Evaluation& e : evaluations) {
        steps << double(e.step);
        loss << e.loss, repeated << e.repeated_loss, accuracy << 100 * e.repeated_accuracy;
        if (e.step > 0) train_steps << double(e.step), train_loss << e.train_loss;
        top = std::max({top, e.loss, e.repeated_loss});
    }
    curve(Loss)->setData(steps, loss, true);
    curve(RepeatedLoss)->setData(steps, repeated, true);
    curve(TrainLoss)->setData(train_steps, train_loss, true);
    curve(RepeatedAccuracy)->setData(steps, accuracy, true);
    xAxis->setRange(0, std::max(10.0, steps.isEmpty() ? 10.0 : steps.back()));
    yAxis->setRange(0, std::max(1.0, top * 1.05));
    replot(rpQueuedReplot);
}

}  // namespace headscope::ui
