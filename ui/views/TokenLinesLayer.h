#pragma once
// TokenLinesView's lines, drawn straight with the painter: thousands of them, no item per line.
// One colour per head, opacity (the weight in 1/64 steps) and width, lightest first (strong lines
// on top). On screen, many lines are blended by our own loop into one image (LineRaster.h): Qt's
// raster engine waits on its fill threads for each one. Files (SVG, PDF) get vector lines.

#include <qcustomplot.h>

namespace headscope::ui {

class TokenLinesView;

class TokenLinesLayer : public QCPAbstractItem {
public:
    TokenLinesLayer(QCustomPlot* plot, TokenLinesView* view);
    double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }

protected:
    void draw(QCPPainter* painter) override;

private:
    static constexpr int kOpacitySteps = 64;
    static constexpr std::size_t kImageFrom = 500;  // lines; fewer are drawn by the painter itself
    TokenLinesView* view_;
};

}  // namespace headscope::ui
