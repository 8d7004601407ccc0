#include "ProjectionView.h"

#include <algorithm>
#include <cmath>

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "ColorMaps.h"
#include "Heatmap.h"

namespace headscope::ui {

namespace {

// matrix (rows, cols) -> map cells, row 0 at the top: cell(c, r) == matrix(r, c).
double fillMatrix(QCPColorMap* map, const Eigen::Ref<const Eigen::MatrixXf>& matrix) {
    const int rows = static_cast<int>(matrix.rows()), cols = static_cast<int>(matrix.cols());
    QCPColorMapData* data = map->data();
    data->setSize(cols, rows);
    data->setRange(cols > 1 ? QCPRange(0, cols - 1) : QCPRange(-0.5, 0.5),
                   rows > 1 ? QCPRange(0, rows - 1) : QCPRange(-0.5, 0.5));
    for (int c = 0; c < cols; ++c)
        for (int r = 0; r < rows; ++r) data->setCell(c, r, matrix(r, c));
    return matrix.size() ? double(matrix.cwiseAbs().maxCoeff()) : 0.0;
}

const char* kNames[] = {"W_i^Q", "W_i^K", "W_QK,i = W_i^Q (W_i^K)^T"};
const char* kColumns[] = {"d_k", "d_k", "d_model"};

}  // namespace

ProjectionView::ProjectionView(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("projection_plot"));
    plot_->setInteractions(QCP::Interactions());
    plot_->plotLayout()->clear();
    title_ = new QCPTextElement(plot_, QString(), heatmap::font(13, 1.0, true));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* row = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, row);
    for (int m = 0; m < 3; ++m) {
        rects_[m] = new QCPAxisRect(plot_, true);
        heatmap::styleAxes(rects_[m]);
        rects_[m]->axis(QCPAxis::atTop)->setLabel(QString::fromUtf8(kNames[m]));
        rects_[m]->axis(QCPAxis::atTop)->setLabelFont(heatmap::font(11, 1.0, true));
        rects_[m]->axis(QCPAxis::atBottom)->setLabel(QString::fromUtf8(kColumns[m]));
        rects_[m]->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("d_model"));
        maps_[m] = new QCPColorMap(rects_[m]->axis(QCPAxis::atBottom), rects_[m]->axis(QCPAxis::atLeft));
        maps_[m]->setInterpolate(false);
        scales_[m] = new QCPColorScale(plot_);
        scales_[m]->setBarWidth(10);
        maps_[m]->setColorScale(scales_[m]);  // the map takes the scale's gradient: set it there
        scales_[m]->setGradient(redBlueGradient());
        row->addElement(0, 2 * m, rects_[m]);
        row->addElement(0, 2 * m + 1, scales_[m]);
        row->setColumnStretchFactor(2 * m, m == Product ? 2.0 : 0.7);
        row->setColumnStretchFactor(2 * m + 1, 0.01);
        auto* group = new QCPMarginGroup(plot_);
        rects_[m]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        scales_[m]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
}

QString ProjectionView::title() const { return title_->text(); }

void ProjectionView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    refresh();
}

void ProjectionView::setHead(int head) {
    head_ = std::max(0, head);
    refresh();
}

void ProjectionView::refresh() {
    if (!analysis_ || analysis_->weights.heads == 0) return;
    const Weights& w = analysis_->weights;
    head_ = std::clamp(head_, 0, w.heads - 1);
    const int d = w.dModel(), d_k = w.d_k;
    // The factors are views into the fused matrices: shown as they are.
    const double extreme_q = fillMatrix(maps_[Query], w.queryHead(head_));
    const double extreme_k = fillMatrix(maps_[Key], w.keyHead(head_));
    const bool product = double(d) * d * d_k <= kMaxProductWork;
    const double extreme_qk = product ? fillMatrix(maps_[Product], mergedQK(w, head_)) : 0.0;
    maps_[Product]->setVisible(product);
    const double extremes[] = {extreme_q, extreme_k, extreme_qk};
    for (int m = 0; m < 3; ++m) {
        const int rows = d, cols = m == Product ? d : d_k;
        heatmap::setCellRanges(rects_[m], rows, cols);
        maps_[m]->setDataRange(symmetricRange(heatmap::niceCeiling(extremes[m])));
    }
    const Spectrum& qk = analysis_->spectra[static_cast<std::size_t>(head_)].qk;
    QString text = QStringLiteral("Head %1: W_QK,i is d_model × d_model = %2 × %2 but has rank %3 ≤ d_k = %4\n"
                                  "%5 parameters as two factors, %6 merged")
                       .arg(head_).arg(d).arg(qk.rank).arg(d_k)
                       .arg(2LL * d * d_k).arg(static_cast<long long>(d) * d);
    if (!product) text += QStringLiteral("\nW_QK not drawn at this size: headscope-cli export writes it");
    title_->setText(text);
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

}  // namespace headscope::ui
