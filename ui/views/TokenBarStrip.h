#pragma once
// A strip of bars, one or two per token position, with the words on the axis, a title that
// fits its width (longest wording first) or one sentence saying why there is nothing to draw,
// a legend under the strip and a tool tip per position. Its subclasses are its data sources:
// TokenLogProbView (log p of each actual next token, intact and with heads off) and
// OutputChangeView (a layer's output norm and its change with heads off). They fill the bars,
// the title's wordings or the message in refresh(), and say what a position is in tipAt().

#include <QStringList>

#include <qcustomplot.h>

#include "DeferredRefresh.h"
#include "ViewOptions.h"

namespace headscope::ui {

class TokenBarStrip : public QCustomPlot {
    Q_OBJECT

public:
    void setOptions(const ViewOptions& options);
    QString title() const { return title_->text(); }

protected:
    // y_label: what a bar's height is. The two bars share a group (side by side), no outline.
    TokenBarStrip(QWidget* parent, const QString& object_name, const QString& y_label);

    // Fills first_ / second_, title_variants_ (longest first) or message_, labels_ (the words by
    // position); then calls fitAndReplot().
    virtual void refresh() = 0;
    // The tool tip at token position p (the axis coordinate nearest the mouse); empty: none.
    virtual QString tipAt(int p) const = 0;
    void requestRefresh() { deferred_->request(); }  // now if shown, else when next shown
    void fitAndReplot();

    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

    ViewOptions options_;
    QStringList title_variants_;  // longest first; empty: a sentence instead of a plot
    QString message_;             // why there is nothing to draw
    QCPBars* first_ = nullptr;    // the intact bars (grey)
    QCPBars* second_ = nullptr;   // with heads off
    QCPBarsGroup* group_ = nullptr;
    QStringList labels_;          // token words, by axis position

private:
    void fitLabels();

    QCPTextElement* title_ = nullptr;
    DeferredRefresh* deferred_ = nullptr;
};

}  // namespace headscope::ui
