#pragma once
// Live facts about the analysis on screen, for the status bar:
//   parameters of one head's query-key pair, factored (2 d_model d_k) vs merged (d_model^2),
//   and of the whole layer; the rank of every head's W_Q W_K^T (never above d_k);
//   the equivalence residuals (fused vs per-head vs merged logits) once they arrive;
//   the time the last update took; what the mouse points at in a heatmap.
// Three lines; one where the window is low (under kCompactBelow logical px: 512 x 384 at 2x on a
// 1024 x 768 projector, issue 21): the parameters (or the fact a lesson step names) and the
// hovered cell, the rest in the tool tip.

#include <QFrame>

#include "Analysis.h"

class QLabel;

namespace headscope::ui {

class FittedLabel;

class StatusPanel : public QFrame {
    Q_OBJECT

public:
    explicit StatusPanel(QWidget* parent = nullptr);

    void showAnalysis(const Analysis& analysis, double update_ms);
    void showEquivalence(const Analysis& analysis);
    void showNote(const QString& text);  // hovered cell, "saved to ..." notes
    void clearNoteStartingWith(const QString& prefix);  // a note that no longer holds ("Preset: ...")
    void showFailure(const QString& message);

    // Everything shown, one fact per line (for tests and the clipboard).
    QString text() const;

    static constexpr int kCompactBelow = 450;  // the window's height, logical px
    // One line (true) or three; set from the window's height as it changes.
    void setCompact(bool compact);
    bool isCompact() const { return compact_; }
    // The fact the one line shows: the parameters, or the logits residuals a lesson step talks about.
    enum class Fact { Parameters, Equivalence };
    void setLeadingFact(Fact fact);
    // Whose facts these are, said before them where a tab shows another model (the Training
    // tab trains its own): "Other tabs' layer: Params per head ..."; "" says nothing.
    void setScope(const QString& scope);
    const QString& scope() const { return scope_; }

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void arrange();
    void updateTip();

    FittedLabel* params_ = nullptr;
    FittedLabel* rank_ = nullptr;
    FittedLabel* equivalence_ = nullptr;
    QLabel* timing_ = nullptr;
    QLabel* note_ = nullptr;
    QString params_explanation_;
    QStringList params_variants_;  // the parameters' wordings, longest first, before the scope
    QString scope_;
    void applyParams();
    QWidget* watched_ = nullptr;  // the window whose height decides
    bool compact_ = false;
    Fact leading_ = Fact::Parameters;
};

}  // namespace headscope::ui
