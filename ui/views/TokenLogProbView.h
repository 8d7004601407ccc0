#pragma once
// How well a loaded model predicts its own input, token by token: for each position, the
// log-probability it gave the token that actually comes there (core's tokenLogProbs), as a
// strip of bars with the words on the axis. With heads knocked out, two bars per token: the
// intact model (grey) and with the heads off (orange), and the loss change in the title, so a
// knocked-out induction head shows where the continuation of a repeated string fails.

#include <memory>

#include "TokenBarStrip.h"
#include "model/AblationEffects.h"

namespace headscope::ui {

class TokenLogProbView : public TokenBarStrip {
    Q_OBJECT

public:
    explicit TokenLogProbView(QWidget* parent = nullptr);

    // null: no model is open (the view says how to open one).
    void setEffects(std::shared_ptr<const model::AblationEffects> effects);

    // What is drawn: bars keyed by token position (after: only with heads off).
    QCPBars* beforeBars() const { return first_; }
    QCPBars* afterBars() const { return second_; }

protected:
    void refresh() override;
    QString tipAt(int p) const override;

private:
    std::shared_ptr<const model::AblationEffects> effects_;
};

}  // namespace headscope::ui
