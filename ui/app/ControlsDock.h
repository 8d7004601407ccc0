#pragma once
// The knobs of one attention layer and of its input, in a dock. Every edit emits
// configEdited() with the whole Config; setConfig() updates the widgets without
// emitting. Problems with a configuration are listed in red at the top of the dock
// (showProblems), while the views keep the last valid result.
// The two view toggles (logits/weights, shared scale) are QActions that the main
// window also puts in its View menu; the dock's check boxes follow them.

#include <QDockWidget>
#include <QStringList>

#include "Config.h"
#include "MetaTypes.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSlider;
class QSpinBox;

namespace headscope::ui {

class ControlsDock : public QDockWidget {
    Q_OBJECT

public:
    explicit ControlsDock(QWidget* parent = nullptr);

    // The configuration the widgets describe (fields without a widget come from the
    // last setConfig()).
    Config config() const;
    // Shows config in the widgets; emits nothing.
    void setConfig(const Config& config);

    // While loaded weights fix the geometry (a GPT-2 model, a PyTorch layer), the layer and
    // weights controls are read-only and say why in their tooltips; text, mask, temperature
    // and the rank tolerance stay live.
    void setGeometryFixed(bool fixed, const QString& why = {});
    // A model without a tokenizer reads token ids ("17 4 9"): the input box is labelled and
    // explained as ids; false gives the text box back.
    void setInputTakesIds(bool ids);
    // An encoder attends both ways: the mask stays "none" and says why; false gives it back.
    void setMaskFixed(bool fixed, const QString& why = {});
    // An encoder reads a sentence pair: the second text box is live and labelled as sentence B;
    // false gives it back to cross-attention (and to setGeometryFixed).
    void setPairInput(bool pair);
    bool geometryFixed() const { return geometry_fixed_; }

    // Lists the problems in red; an empty list hides the label. A problem a ticked control
    // causes (Lock d_k = d_v = d_model / heads) also says to untick it.
    void showProblems(const QStringList& problems);
    QStringList shownProblems() const { return problems_; }

    // The dock's width at which every field shows whole (its fields at their least widths, labels
    // wrapped above them where a row is long), with no horizontal scroll bar.
    int wholeWidth() const;

    QAction* logitsAction() const { return logits_action_; }
    QAction* sharedScaleAction() const { return shared_scale_action_; }

signals:
    void configEdited(const headscope::Config& config);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void updateTextHeights();
    void wrapLongLabels();
    QString withLockHint(const QString& problem) const;
    QWidget* buildLayerGroup();
    QWidget* buildWeightsGroup();
    QWidget* buildAttentionGroup();
    QWidget* buildInputGroup();
    QWidget* buildViewGroup();
    void edited();
    void onSliderMoved(int value);
    void updateDerivedDims();

    bool geometry_fixed_ = false;
    int shown_heads_ = 0;  // heads before the spin box changed (K/V heads follows it)
    Config base_;  // fields the dock has no widget for (init sigma)
    QStringList problems_;
    QString text_tooltip_;  // the text box's own, given back after a model without a tokenizer
    QString source_tooltip_;  // the second box's own (cross-attention), given back after an encoder

    QLabel* problems_label_ = nullptr;
    QSpinBox* d_model_ = nullptr;
    QSlider* d_model_slider_ = nullptr;
    QSpinBox* heads_ = nullptr;
    QCheckBox* lock_ = nullptr;
    QSpinBox* d_k_ = nullptr;
    QSpinBox* d_v_ = nullptr;
    QSpinBox* kv_heads_ = nullptr;
    QComboBox* init_ = nullptr;
    QLineEdit* seed_ = nullptr;
    QLineEdit* padded_keys_ = nullptr;
    QCheckBox* bias_ = nullptr;
    QComboBox* mask_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QDoubleSpinBox* temperature_ = nullptr;
    QDoubleSpinBox* rank_rtol_ = nullptr;
    QPlainTextEdit* text_ = nullptr;
    QPlainTextEdit* source_text_ = nullptr;
    QSpinBox* seq_len_ = nullptr;
    QAction* logits_action_ = nullptr;
    QAction* shared_scale_action_ = nullptr;
};

}  // namespace headscope::ui
