// ControlsDock's Attention, Weights and View groups (the Layer and Input groups, the config
// and the problems are in ControlsDock.cpp).
#include "ControlsDock.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QToolButton>
#include <QVBoxLayout>

#include "FormWidgets.h"

namespace headscope::ui {

QWidget* ControlsDock::buildAttentionGroup() {
    auto* group = new QGroupBox(tr("Attention"));
    auto* form = new QFormLayout(group);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // large fonts: a field under its label

    mask_ = new QComboBox(group);
    mask_->setObjectName(QStringLiteral("mask"));
    keepNarrow(mask_);
    mask_->addItem(tr("none (sees all)"), int(MaskKind::None));
    mask_->addItem(tr("causal (GPT)"), int(MaskKind::Causal));
    mask_->setToolTip(tr("Causal: each token may only look at itself and the tokens before it, as in GPT. "
                         "None: every token may look at every token, as in BERT."));
    addRow(form, tr("M&ask"), mask_);

    scale_ = makeCheck(group, "scale", tr("Scale logits b&y 1/\u221Ad_k"),
        tr("Divide each query-key dot product by \u221Ad_k before the softmax, as in the paper. Without it, "
           "large d_k makes the scores large and the softmax picks almost a single token."));
    form->addRow(scale_);

    temperature_ = new QDoubleSpinBox(group);
    temperature_->setObjectName(QStringLiteral("temperature"));
    temperature_->setRange(0.01, 100.0);
    temperature_->setDecimals(3);
    temperature_->setSingleStep(0.1);
    temperature_->setKeyboardTracking(false);
    temperature_->setAccelerated(true);
    temperature_->setToolTip(tr("The logits are divided by this number before the softmax. Above 1 spreads "
                                "attention over more tokens, below 1 sharpens it; 1 changes nothing."));
    addRow(form, tr("&Temperature"), temperature_);

    padded_keys_ = new QLineEdit(group);
    padded_keys_->setObjectName(QStringLiteral("padded_keys"));
    padded_keys_->setPlaceholderText(tr("none, e.g. 0, 3"));
    padded_keys_->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9, ]{0,200}")), padded_keys_));
    padded_keys_->setToolTip(tr("Key positions treated as padding: no query may attend to them (grey columns). "
                                "Pad key 0 under a causal mask and the first query has nothing left to attend "
                                "to: PyTorch gives NaN there, HeadScope gives zero weights."));
    addRow(form, tr("&Padded keys"), padded_keys_);

    connect(padded_keys_, &QLineEdit::textEdited, this, &ControlsDock::edited);
    connect(mask_, &QComboBox::currentIndexChanged, this, [this]() { fitShownItem(mask_); });
    connect(mask_, &QComboBox::currentIndexChanged, this, &ControlsDock::edited);
    connect(scale_, &QCheckBox::toggled, this, &ControlsDock::edited);
    connect(temperature_, &QDoubleSpinBox::valueChanged, this, &ControlsDock::edited);
    return group;
}

QWidget* ControlsDock::buildWeightsGroup() {
    auto* group = new QGroupBox(tr("Weights"));
    auto* form = new QFormLayout(group);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // large fonts: a field under its label

    init_ = new QComboBox(group);
    init_->setObjectName(QStringLiteral("init"));
    keepNarrow(init_);
    init_->addItem(tr("Xavier uniform"), int(InitKind::Xavier));
    init_->addItem(tr("Normal (small \u03C3)"), int(InitKind::Normal));
    init_->addItem(tr("Identity (no projection)"), int(InitKind::Identity));
    init_->setToolTip(tr("How the weights are made: Xavier uniform, the default of PyTorch's "
                         "nn.MultiheadAttention; a normal distribution with a small standard deviation; or "
                         "W_Q = W_K = W_V = W_O = I (needs heads \u00D7 d_k = d_model): with one head that is "
                         "attention with no projection (Q = K = V = X), with h heads each head reads only its "
                         "d_model/h slice of the embedding."));
    addRow(form, tr("I&nitialiser"), init_);

    seed_ = new QLineEdit(group);
    seed_->setObjectName(QStringLiteral("seed"));
    seed_->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{1,20}")), seed_));
    seed_->setToolTip(tr("Seed of the random weights and word vectors. The same seed gives the same numbers "
                         "on every computer; a new seed gives a new random layer."));
    auto* next = new QToolButton(group);
    next->setObjectName(QStringLiteral("next_seed"));
    next->setText(tr("Ne&w"));
    next->setToolTip(tr("Next seed: draw a new random layer."));
    auto* seed_row = new QWidget(group);
    auto* seed_box = new QHBoxLayout(seed_row);
    seed_box->setContentsMargins(0, 0, 0, 0);
    seed_box->addWidget(seed_, 1);
    seed_box->addWidget(next, 0);
    addRow(form, tr("&Seed"), seed_row, seed_);

    rank_rtol_ = new QDoubleSpinBox(group);
    rank_rtol_->setObjectName(QStringLiteral("rank_rtol"));
    rank_rtol_->setDecimals(8);
    rank_rtol_->setRange(0.0, 0.5);
    rank_rtol_->setSingleStep(1e-4);
    rank_rtol_->setKeyboardTracking(false);
    rank_rtol_->setSpecialValueText(tr("NumPy default"));
    rank_rtol_->setToolTip(tr("Singular values at or below this fraction of the largest count as zero when "
                              "ranks are counted. 0 uses NumPy's matrix_rank default (\u03C3_max \u00B7 "
                              "d_model \u00B7 machine epsilon)."));
    addRow(form, tr("Rank &tolerance"), rank_rtol_);

    bias_ = makeCheck(group, "bias", tr("&Biases"),
        tr("Add a learned offset (bias) after each projection. Many modern models leave them out."));
    form->addRow(bias_);

    connect(init_, &QComboBox::currentIndexChanged, this, [this]() { fitShownItem(init_); });
    connect(init_, &QComboBox::currentIndexChanged, this, &ControlsDock::edited);
    connect(seed_, &QLineEdit::textEdited, this, &ControlsDock::edited);
    connect(next, &QToolButton::clicked, this, [this]() {
        bool ok = false;
        const qulonglong seed = seed_->text().toULongLong(&ok);
        seed_->setText(QString::number(ok ? seed + 1 : 0));
        edited();
    });
    connect(bias_, &QCheckBox::toggled, this, &ControlsDock::edited);
    connect(rank_rtol_, &QDoubleSpinBox::valueChanged, this, &ControlsDock::edited);
    return group;
}

QWidget* ControlsDock::buildViewGroup() {
    auto* group = new QGroupBox(tr("View"));
    auto* column = new QVBoxLayout(group);
    const auto bind = [group, column](QAction* action, const char* name, const QString& text, const QString& tip) {
        auto* box = makeCheck(group, name, text, tip);
        action->setToolTip(tip);
        box->setChecked(action->isChecked());
        connect(box, &QCheckBox::toggled, action, &QAction::setChecked);
        connect(action, &QAction::toggled, box, &QCheckBox::setChecked);
        column->addWidget(box);
    };
    bind(logits_action_, "show_logits", tr("Show l&ogits (scores before the softmax)"),
         tr("Show the raw scores q\u00B7k (logits) before the softmax instead of the attention weights after it."));
    bind(shared_scale_action_, "shared_scale", tr("Shared colo&ur scale for all heads"),
         tr("One colour scale for every head, so colours can be compared between heads. Untick to stretch "
            "each head's colours over its own range."));
    return group;
}

}  // namespace headscope::ui
