#pragma once
// A text item on a plot typeset where it uses the notation (TypesetText: "min(d_k, d_model)"
// with its subscripts, as plot titles are), placed as QCPItemText places its text: at its
// position by positionAlignment, with its padding, pen and brush. Plain text otherwise.

#include <qcustomplot.h>

namespace headscope::ui {

class TypesetItemText : public QCPItemText {
    Q_OBJECT

public:
    explicit TypesetItemText(QCustomPlot* plot);

protected:
    void draw(QCPPainter* painter) override;
};

}  // namespace headscope::ui
