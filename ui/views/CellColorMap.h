#pragma once
// A QCPColorMap that stays sharp in vector exports: painted into SVG or PDF (a vectorized
// QCPPainter), a map of at most kMaxVectorCells x kMaxVectorCells cells draws one rectangle per
// cell; larger maps are embedded as a bitmap drawn without smoothing. On screen and in PNG it
// is QCustomPlot's own fast bitmap path.

#include <qcustomplot.h>

namespace headscope::ui {

class CellColorMap : public QCPColorMap {
    Q_OBJECT

public:
    static constexpr int kMaxVectorCells = 128;
    CellColorMap(QCPAxis* key_axis, QCPAxis* value_axis);

protected:
    void draw(QCPPainter* painter) override;

private:
    void drawCells(QCPPainter* painter);
};

}  // namespace headscope::ui
