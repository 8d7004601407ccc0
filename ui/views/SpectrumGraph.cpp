#include "SpectrumGraph.h"

namespace headscope::ui {

void SpectrumGraph::dropInnerPointsOfFlatRuns(QVector<QCPGraphData>& points) {
    qsizetype kept = 0;
    for (qsizetype i = 0; i < points.size(); ++i) {
        const bool inner = i > 0 && i + 1 < points.size() && points[i - 1].value == points[i].value &&
                           points[i + 1].value == points[i].value;
        if (!inner) points[kept++] = points[i];
    }
    points.resize(kept);
}

void SpectrumGraph::getOptimizedLineData(QVector<QCPGraphData>* line_data,
                                         const QCPGraphDataContainer::const_iterator& begin,
                                         const QCPGraphDataContainer::const_iterator& end) const {
    QCPGraph::getOptimizedLineData(line_data, begin, end);
    if (line_data && lineStyle() == lsLine) dropInnerPointsOfFlatRuns(*line_data);
}

}  // namespace headscope::ui
