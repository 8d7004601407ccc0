#pragma once
// A legend entry whose name is typeset where it uses the notation (TypesetText: "query q_i"
// as q with the subscript i, as plot titles are). QCPPlottableLegendItem draws the icon and
// sizes the entry by the raw name (never narrower than the typeset one).

#include <qcustomplot.h>

namespace headscope::ui {

class TypesetLegendItem : public QCPPlottableLegendItem {
    Q_OBJECT

public:
    TypesetLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable);

protected:
    void draw(QCPPainter* painter) override;
};

}  // namespace headscope::ui
