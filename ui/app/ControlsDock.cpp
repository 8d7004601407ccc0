#include "ControlsDock.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetrics>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyleOptionComboBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "FormWidgets.h"
#include "TypesetText.h"

namespace headscope::ui {

namespace {

QString toText(const std::string& s) { return QString::fromStdString(s); }

constexpr int kSliderSteps = 1200;

// d_model -> logarithmic slider position and back: position p shows 4096^(p / steps).
int sliderPosition(int d_model) {
    return int(std::lround(kSliderSteps * std::log(double(std::max(1, d_model))) / std::log(double(Limits::kMaxDModel))));
}

}  // namespace

ControlsDock::ControlsDock(QWidget* parent) : QDockWidget(tr("Controls"), parent) {
    setObjectName(QStringLiteral("controls_dock"));
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                QDockWidget::DockWidgetClosable);

    logits_action_ = new QAction(tr("Show &logits instead of weights"), this);
    logits_action_->setObjectName(QStringLiteral("show_logits_action"));
    logits_action_->setCheckable(true);
    logits_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    shared_scale_action_ = new QAction(tr("&Shared colour scale"), this);
    shared_scale_action_->setObjectName(QStringLiteral("shared_scale_action"));
    shared_scale_action_->setCheckable(true);
    shared_scale_action_->setChecked(true);

    problems_label_ = new QLabel;
    problems_label_->setObjectName(QStringLiteral("problems"));
    problems_label_->setWordWrap(true);
    problems_label_->setTextFormat(Qt::RichText);
    problems_label_->setStyleSheet(QStringLiteral(
        "QLabel { color: #a40000; background: #fde8e8; border: 1px solid #e0a0a0; padding: 6px; margin: 4px; }"));
    problems_label_->setAccessibleName(tr("Problems with this configuration"));
    problems_label_->hide();

    auto* content = new QWidget;
    auto* column = new QVBoxLayout(content);
    column->addWidget(buildLayerGroup());
    column->addWidget(buildInputGroup());
    column->addWidget(buildAttentionGroup());
    column->addWidget(buildWeightsGroup());
    column->addWidget(buildViewGroup());
    column->addStretch(1);

    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);

    // The problems sit below the scrolling controls: visible whichever control caused them, and
    // showing them shortens the scroll area from the bottom instead of pushing every control down.
    auto* frame = new QWidget;
    auto* outer = new QVBoxLayout(frame);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);
    outer->addWidget(scroll, 1);
    outer->addWidget(problems_label_);
    setWidget(frame);

    setConfig(Config{});
    updateTextHeights();
}

QWidget* ControlsDock::buildLayerGroup() {
    auto* group = new QGroupBox(tr("Layer"));
    auto* form = new QFormLayout(group);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // large fonts: a field under its label

    d_model_ = makeSpin(group, "d_model", 1, Limits::kMaxDModel,
        tr("d_model: the width of every token's vector. Each word is represented by this many numbers; "
           "all heads together read and write vectors of this size."));
    d_model_slider_ = new QSlider(Qt::Horizontal, group);
    d_model_slider_->setObjectName(QStringLiteral("d_model_slider"));
    d_model_slider_->setRange(0, kSliderSteps);  // logarithmic: 1 ... 4096
    d_model_slider_->setSingleStep(10);
    d_model_slider_->setPageStep(kSliderSteps / 12);  // a factor of 2
    d_model_slider_->setToolTip(tr("Drag to change d_model (logarithmic: every step of the same length "
                                   "multiplies it by the same factor). While the head dimensions are locked "
                                   "the slider stops only at multiples of the number of heads."));
    auto* d_model_row = new QWidget(group);
    auto* d_model_box = new QHBoxLayout(d_model_row);
    d_model_box->setContentsMargins(0, 0, 0, 0);
    d_model_box->addWidget(d_model_, 0);
    d_model_box->addWidget(d_model_slider_, 1);
    addRow(form, tr("d_&model"), d_model_row, d_model_);

    heads_ = makeSpin(group, "heads", 1, Limits::kMaxHeads,
        tr("How many attention heads read the sentence in parallel. Each head has its own query, key "
           "and value projections and draws its own heatmap."));
    addRow(form, tr("He&ads"), heads_);  // Alt+E is the Edit menu

    // Alt+L is the Lessons menu; Alt+C (Scale's before) is free of the menus.
    lock_ = makeCheck(group, "lock_dims", tr("Lo&ck d_k = d_v = d_model / heads"),
        tr("Ticked: every head gets an equal slice of d_model, as in \"Attention Is All You Need\". "
           "Untick to choose d_k and d_v freely."));
    form->addRow(lock_);

    d_k_ = makeSpin(group, "d_k", 1, Limits::kMaxHeadDim,
        tr("d_k: length of each head's query and key vectors. The rank of a head's W_Q W_K^T can never be "
           "larger than d_k."));
    addRow(form, tr("d_&k"), d_k_);
    d_v_ = makeSpin(group, "d_v", 1, Limits::kMaxHeadDim,
        tr("d_v: length of each head's value vector: how many numbers each head passes on to the output."));
    addRow(form, tr("&d_v"), d_v_);

    kv_heads_ = makeSpin(group, "kv_heads", 0, Limits::kMaxHeads,
        tr("Number of key/value heads (grouped-query attention): several query heads share one key and "
           "value head. \"= heads\" is ordinary multi-head attention, 1 is multi-query attention."));
    kv_heads_->setSpecialValueText(tr("= heads"));
    addRow(form, tr("K/V heads (&GQA)"), kv_heads_);

    connect(d_model_, &QSpinBox::valueChanged, this, [this](int value) {
        const QSignalBlocker block(d_model_slider_);
        d_model_slider_->setValue(sliderPosition(value));
        edited();
    });
    connect(d_model_slider_, &QSlider::valueChanged, this, &ControlsDock::onSliderMoved);
    // K/V heads equal to heads is ordinary multi-head attention: it follows heads ("= heads")
    // instead of staying put and making fewer heads an error. Fewer K/V heads than heads is
    // grouped-query attention chosen on purpose: it stays, and the problems say if it no
    // longer divides the heads.
    connect(heads_, &QSpinBox::valueChanged, this, [this](int heads) {
        if (kv_heads_->value() == shown_heads_ || kv_heads_->value() > heads) {
            const QSignalBlocker block(kv_heads_);
            kv_heads_->setValue(0);
        }
        shown_heads_ = heads;
        edited();
    });
    connect(lock_, &QCheckBox::toggled, this, &ControlsDock::edited);
    connect(d_k_, &QSpinBox::valueChanged, this, &ControlsDock::edited);
    connect(d_v_, &QSpinBox::valueChanged, this, &ControlsDock::edited);
    connect(kv_heads_, &QSpinBox::valueChanged, this, &ControlsDock::edited);
    return group;
}

QWidget* ControlsDock::buildInputGroup() {
    auto* group = new QGroupBox(tr("Input"));
    auto* form = new QFormLayout(group);
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);

    text_ = makeTextEdit(group, "text", 3,
        tr("The sentence the heads look at. Every word and punctuation mark becomes one token: one row "
           "(and, in self-attention, one column) of each heatmap."));
    text_tooltip_ = text_->toolTip();
    addRow(form, tr("&Input text"), text_);
    source_text_ = makeTextEdit(group, "source_text", 2,
        tr("Leave empty for self-attention. Type a second sentence for cross-attention: queries come from "
           "the input text, keys and values from this sentence (like a translator looking back at the "
           "original)."));
    source_text_->setPlaceholderText(tr("empty = self-attention"));
    source_tooltip_ = source_text_->toolTip();
    addRow(form, tr("Source te&xt (cross-attention)"), source_text_);

    seq_len_ = makeSpin(group, "seq_len", 0, Limits::kMaxSeqLen,
        tr("Used only when the input text is empty: this many random tokens instead of a sentence."));
    seq_len_->setSpecialValueText(tr("off (use the text)"));
    addRow(form, tr("Random toke&ns"), seq_len_);  // Alt+R is the Presets menu

    connect(text_, &QPlainTextEdit::textChanged, this, &ControlsDock::edited);
    connect(source_text_, &QPlainTextEdit::textChanged, this, &ControlsDock::edited);
    connect(seq_len_, &QSpinBox::valueChanged, this, &ControlsDock::edited);
    return group;
}

void ControlsDock::onSliderMoved(int position) {
    int value = int(std::lround(std::pow(double(Limits::kMaxDModel), double(position) / kSliderSteps)));
    if (lock_->isChecked()) {  // snap to a d_model every head divides evenly
        const int heads = heads_->value();
        value = std::max(heads, int(std::lround(double(value) / heads)) * heads);
        if (value > Limits::kMaxDModel) value -= heads;
    }
    d_model_->setValue(value);  // emits through the spin box, which moves the knob onto value
}

void ControlsDock::setGeometryFixed(bool fixed, const QString& why) {
    geometry_fixed_ = fixed;
    for (QWidget* w : std::initializer_list<QWidget*>{d_model_, d_model_slider_, heads_, lock_, d_k_, d_v_, kv_heads_,
                                                      init_, seed_, bias_, source_text_, seq_len_}) {
        w->setEnabled(!fixed);
        w->setStatusTip(fixed ? why : QString());
    }
    if (!fixed) updateDerivedDims();
}

void ControlsDock::setInputTakesIds(bool ids) {
    auto* form = qobject_cast<QFormLayout*>(text_->parentWidget()->layout());
    if (auto* label = form ? qobject_cast<QLabel*>(form->labelForField(text_)) : nullptr)
        label->setText(ids ? tr("&Input token ids") : tr("&Input text"));
    text_->setPlaceholderText(ids ? tr("token ids, e.g. 17 4 9") : QString());
    text_->setToolTip(ids ? tr("This model has no tokenizer: give its token ids, separated by spaces or commas. Each id "
                               "becomes one token, labelled by its id.")
                          : text_tooltip_);
    wrapLongLabels();
}

void ControlsDock::setPairInput(bool pair) {
    auto* form = qobject_cast<QFormLayout*>(source_text_->parentWidget()->layout());
    if (auto* label = form ? qobject_cast<QLabel*>(form->labelForField(source_text_)) : nullptr)
        label->setText(pair ? tr("Second sentence (pair, &B)") : tr("Source te&xt (cross-attention)"));
    source_text_->setPlaceholderText(pair ? tr("empty = one text") : tr("empty = self-attention"));
    source_text_->setToolTip(pair ? tr("A second sentence: the encoder reads [CLS] first [SEP] second [SEP] (BERT gives it "
                                       "token type 1); heads that look across the two show in the Looks at tab.")
                                  : source_tooltip_);
    if (pair) {
        source_text_->setEnabled(true);
        source_text_->setStatusTip(QString());
    }
    wrapLongLabels();
}

void ControlsDock::setMaskFixed(bool fixed, const QString& why) {
    mask_->setEnabled(!fixed);
    mask_->setStatusTip(fixed ? why : QString());
}

void ControlsDock::updateDerivedDims() {
    if (geometry_fixed_) return;
    const bool locked = lock_->isChecked();
    d_k_->setEnabled(!locked);
    d_v_->setEnabled(!locked);
    if (locked) {
        const QSignalBlocker block_k(d_k_), block_v(d_v_);
        const int derived = std::max(1, d_model_->value() / heads_->value());
        d_k_->setValue(derived);
        d_v_->setValue(derived);
    }
}

void ControlsDock::edited() {
    updateDerivedDims();
    emit configEdited(config());
}

Config ControlsDock::config() const {
    Config c = base_;
    c.d_model = d_model_->value();
    c.heads = heads_->value();
    c.d_k = lock_->isChecked() ? 0 : d_k_->value();
    c.d_v = lock_->isChecked() ? 0 : d_v_->value();
    c.kv_heads = kv_heads_->value();
    c.init = InitKind(init_->currentData().toInt());
    bool ok = false;
    const qulonglong seed = seed_->text().toULongLong(&ok);
    c.seed = ok ? seed : base_.seed;
    c.bias = bias_->isChecked();
    c.rank_rtol = rank_rtol_->value();
    c.mask = MaskKind(mask_->currentData().toInt());
    c.scale = scale_->isChecked();
    c.temperature = temperature_->value();
    c.padded_keys.clear();
    for (const QString& key : padded_keys_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok_key = false;
        const int position = key.trimmed().toInt(&ok_key);
        if (ok_key) c.padded_keys.push_back(position);  // range: Config::validate() explains
    }
    c.text = text_->toPlainText().toStdString();
    c.source_text = source_text_->toPlainText().toStdString();
    c.seq_len = seq_len_->value();
    return c;
}

void ControlsDock::setConfig(const Config& c) {
    base_ = c;
    const QList<QObject*> widgets{d_model_, d_model_slider_, heads_, lock_, d_k_, d_v_, kv_heads_, init_,
                                  seed_, bias_, mask_, scale_, temperature_, padded_keys_, text_, source_text_,
                                  seq_len_, rank_rtol_};
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QObject* widget : widgets) blockers.push_back(std::make_unique<QSignalBlocker>(widget));

    d_model_->setValue(c.d_model);
    d_model_slider_->setValue(sliderPosition(c.d_model));
    heads_->setValue(c.heads);
    shown_heads_ = c.heads;
    lock_->setChecked(c.d_k == 0 && c.d_v == 0);
    d_k_->setValue(c.headDimK());
    d_v_->setValue(c.headDimV());
    kv_heads_->setValue(c.kv_heads);
    init_->setCurrentIndex(init_->findData(int(c.init)));
    seed_->setText(QString::number(qulonglong(c.seed)));
    bias_->setChecked(c.bias);
    rank_rtol_->setValue(c.rank_rtol);
    mask_->setCurrentIndex(mask_->findData(int(c.mask)));
    scale_->setChecked(c.scale);
    temperature_->setValue(c.temperature);
    QStringList keys;
    for (int key : c.padded_keys) keys << QString::number(key);
    if (padded_keys_->text() != keys.join(QStringLiteral(", "))) padded_keys_->setText(keys.join(QStringLiteral(", ")));
    if (text_->toPlainText() != toText(c.text)) text_->setPlainText(toText(c.text));
    if (source_text_->toPlainText() != toText(c.source_text)) source_text_->setPlainText(toText(c.source_text));
    seq_len_->setValue(c.seq_len);
    fitShownItem(mask_);  // its signals were blocked
    fitShownItem(init_);
    updateDerivedDims();
}

QString ControlsDock::withLockHint(const QString& problem) const {
    // The core explains in terms of the configuration ("set d_k and d_v explicitly"); here the
    // cause is a control the user ticked, so the way out names it.
    if (!lock_->isChecked() || !lock_->isEnabled()) return problem;
    const QString cause = QStringLiteral("d_model %1 is not divisible by %2 heads").arg(d_model_->value()).arg(heads_->value());
    if (!problem.startsWith(cause)) return problem;
    const QString choose = QStringLiteral("choose ");
    const qsizetype at = problem.lastIndexOf(choose);
    QString divisors;
    if (at >= 0) {
        divisors = problem.mid(at + choose.size());
        if (divisors.endsWith(QLatin1Char('.'))) divisors.chop(1);
        divisors = tr(" (%1 divide it)").arg(divisors);
    }
    return tr("%1: change d_model or heads%2, or untick Lock to set d_k and d_v yourself.").arg(cause, divisors);
}

void ControlsDock::showProblems(const QStringList& reported) {
    QStringList problems;
    for (const QString& problem : reported) problems << withLockHint(problem);
    problems_ = problems;
    // Contradictory inputs are not errors, but must not pass silently.
    QStringList notes;
    if (seq_len_->value() > 0 && !text_->toPlainText().trimmed().isEmpty())
        notes << tr("Random tokens %1 is ignored while the text box holds text: clear the text to use "
                    "%1 random tokens, or set Random tokens to off.").arg(seq_len_->value());
    // Not refused (it computes), but never silent: a causal mask across two sentences (issue 21).
    if (MaskKind(mask_->currentData().toInt()) == MaskKind::Causal && !source_text_->toPlainText().trimmed().isEmpty())
        notes << tr("The causal mask applies to cross-attention too: query i sees only source tokens 0 to i. "
                    "Decoders leave cross-attention unmasked: set Mask to none.");
    const QString note = notes.join(QLatin1Char(' '));
    if (problems.isEmpty() && !note.isEmpty()) {
        problems_label_->setText(tr("<b>Note.</b> %1").arg(typeset::lineHtml(note)));  // escaped, the notation typeset
        problems_label_->show();
        return;
    }
    if (problems.isEmpty()) {
        problems_label_->hide();
        problems_label_->clear();
        return;
    }
    QString html = tr("<b>Cannot compute this configuration.</b> The views still show the last valid one.<ul "
                      "style=\"margin-left: 12px; -qt-list-indent: 0;\">");
    // Escaped, "d_model" typeset (issue 21); shownProblems() keeps the notation as written.
    for (const QString& problem : problems) html += QStringLiteral("<li>%1</li>").arg(typeset::lineHtml(problem));
    html += QStringLiteral("</ul>");
    if (!note.isEmpty()) html += tr("<b>Note.</b> %1").arg(typeset::lineHtml(note));
    problems_label_->setText(html);
    problems_label_->show();
}

}  // namespace headscope::ui
