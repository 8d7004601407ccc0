#pragma once
// How well a loaded model predicts its own input, token by token: for each position, the
// log-probability it gave the token that actually comes there (core's tokenLogProbs), as a
// strip of bars with the words on the axis. With heads knocked out, two bars per token: the
// intact model (grey) and with the heads off (orange), and the loss change in the title, so a
// knocked-out induction head shows where the continuation of a repeated string fails.

#include <memory>

#include <qcustomplot.h>

#include "DeferredRefresh.h"
#include "ViewOptions.h"
#include "model/AblationEffects.h"

namespace headscope::ui {

class TokenLogProbView : public QCustomPlot {
    Q_OBJECT

public:
    explicit TokenLogProbView(QWidget* parent = nullptr);

    // null: no model is open (the view says how to open one).
    void setEffects(std::shared_ptr<const model::AblationEffects> effects);
    void setOptions(const ViewOptions& options);

    // What is drawn: bars keyed by token position (after: only with heads off).
    QCPBars* beforeBars() const { return before_; }
    QCPBars* afterBars() const { return after_; }
    QString title() const { return title_->text(); }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void refresh();
    void fitLabels();

    std::shared_ptr<const model::AblationEffects> effects_;
    ViewOptions options_;
    QCPTextElement* title_ = nullptr;
    QStringList title_variants_;  // longest first; empty: a sentence instead of a plot
    QString message_;             // why there is nothing to draw
    QCPBars* before_ = nullptr;
    QCPBars* after_ = nullptr;
    QCPBarsGroup* group_ = nullptr;
    QStringList labels_;          // token words, by position
    DeferredRefresh* deferred_ = nullptr;
};

}  // namespace headscope::ui
