#include "TrainingCurvesView.h"

#include <algorithm>

#include "LonePoints.h"
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
        names_.push_back(tr(c.name));
        g->setName(names_.back());
        g->setPen(QPen(c.color, 2, c.style));
    }
    xAxis->setLabel(tr("step"));
    // Each axis label whole in the height its axis has (fitAxisLabels): on one line, else on two
    // or three, else fewer words (the legend names the accuracy's curve).
    loss_labels_ = {tr("loss (nats)"), tr("loss\n(nats)"), tr("loss")};
    accuracy_labels_ = {tr("accuracy, repeated half (%)"), tr("accuracy,\nrepeated half (%)"),
                        tr("accuracy,\nrepeated\nhalf (%)"), tr("accuracy (%)"), tr("acc. (%)")};
    yAxis->setLabel(loss_labels_.front());
    yAxis2->setVisible(true);
    yAxis2->setLabel(accuracy_labels_.front());
    yAxis2->setRange(0, 100);
    legend->setFont(font());
    fit::legendBelow(this, 2);
    fitLegend(width());
}

void TrainingCurvesView::resizeEvent(QResizeEvent* event) {
    fitLegend(event->size().width());
    QCustomPlot::resizeEvent(event);
    fitAxisLabels();
}

void TrainingCurvesView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) {
        legend->setFont(font());  // View > Larger: the legend grows with the axes
        fitLegend(width());
    }
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::FontChange) fitAxisLabels();
}

void TrainingCurvesView::fitAxisLabels() {
    // The rect's height does not depend on the vertical labels: one layout at the longest.
    yAxis->setLabel(loss_labels_.front()), yAxis2->setLabel(accuracy_labels_.front());
    fit::layOut(this);
    fit::fitAxisLabel(yAxis, loss_labels_);
    fit::fitAxisLabel(yAxis2, accuracy_labels_);
    fit::fitTickCount(yAxis);
    fit::fitTickCount(yAxis2);
}

void TrainingCurvesView::fitLegend(int width) {
    // What one entry needs, as QCPPlottableLegendItem measures it: its margins, the icon, the
    // padding and the name in the legend's font.
    const QFontMetrics metrics(legend->font());
    const int n = int(names_.size());
    const auto entryWidth = [&](const QString& name) {
        const QCPAbstractLegendItem* item = legend->item(0);
        const QMargins m = item ? item->margins() : QMargins(8, 2, 8, 2);
        return m.left() + m.right() + legend->iconSize().width() + legend->iconTextPadding() +
               metrics.boundingRect(0, 0, 0, legend->iconSize().height(), Qt::TextDontClip, name).width() + 1;
    };
    const int room = width - legend->margins().left() - legend->margins().right() -
                     plotLayout()->margins().left() - plotLayout()->margins().right();
    // The most entries side by side that fit whole: columns are as wide as their widest entry.
    int columns = 1;
    for (int c = n; c >= 1; --c) {
        int total = (c - 1) * legend->columnSpacing();
        for (int column = 0; column < c; ++column) {
            int widest = 0;
            for (int i = column; i < n; i += c) widest = std::max(widest, entryWidth(names_[std::size_t(i)]));
            total += widest;
        }
        if (total <= room) {
            columns = c;
            break;
        }
    }
    // One per row and still too wide (a very narrow plot, large fonts): shortened, in full in the tip.
    bool shortened = false;
    for (int i = 0; i < n && i < graphCount(); ++i) {
        const QString& full = names_[std::size_t(i)];
        QString shown = full;
        if (columns == 1 && entryWidth(full) > room) {
            const int text_room = std::max(0, room - (entryWidth(QString()) - 1));
            shown = metrics.elidedText(full, Qt::ElideRight, text_room);
            shortened = true;
        }
        if (graph(i)->name() != shown) graph(i)->setName(shown);
    }
    setToolTip(shortened ? QStringList(names_.begin(), names_.end()).join(QStringLiteral(" \u00B7 ")) : QString());
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
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
    dotLonePoints(this);  // step 0, before training: one evaluation, a dot on each curve
    xAxis->setRange(0, std::max(10.0, steps.isEmpty() ? 10.0 : steps.back()));
    yAxis->setRange(0, std::max(1.0, top * 1.05));
    replot(rpQueuedReplot);
}

}  // namespace headscope::ui
