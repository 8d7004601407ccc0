#pragma once
// A spectrum's curve: every singular value 1..d_model in its data (hover, export and tests read
// them all), but the polyline drawn through a run of equal values (the zeros on the "= 0" band,
// d_model - d_k of them per head) is its two ends: the same straight segment, a fraction of the
// points to transform and stroke. 24 curves of 768 points at BERT-base drew in ~2 ms; this is
// about half.

#include <qcustomplot.h>

namespace headscope::ui {

class SpectrumGraph : public QCPGraph {
    Q_OBJECT

public:
    SpectrumGraph(QCPAxis* key_axis, QCPAxis* value_axis) : QCPGraph(key_axis, value_axis) {}

    // Drops the inner points of every run of three or more consecutive points with the same
    // value (a horizontal segment); keeps every other point, in order.
    static void dropInnerPointsOfFlatRuns(QVector<QCPGraphData>& points);

protected:
    void getOptimizedLineData(QVector<QCPGraphData>* line_data, const QCPGraphDataContainer::const_iterator& begin,
                              const QCPGraphDataContainer::const_iterator& end) const override;
};

}  // namespace headscope::ui
