#include "TrainingSettings.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "FormWidgets.h"

namespace headscope::ui {

namespace {

QSpinBox* spinBox(int low, int high, int value, const QString& tip, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(low, high);
    box->setValue(value);
    box->setToolTip(tip);
    return box;
}

}  // namespace

TrainingSettings::TrainingSettings(QWidget* parent) : QWidget(parent) {
    const train::TrainConfig d;
    setObjectName(QStringLiteral("training_settings"));
    layers_ = spinBox(1, train::TrainConfig::kMaxLayers, d.layers, tr("Layers: 2 can form an induction head, 1 cannot"), this);
    d_model_ = spinBox(2, 256, d.d_model, tr("Width of the residual stream"), this);
    heads_ = spinBox(1, 16, d.heads, tr("Heads per layer (must divide d_model)"), this);
    vocab_ = spinBox(4, train::TrainConfig::kMaxVocab, d.vocab, tr("Tokens in the vocabulary (saved as one character each)"), this);
    context_ = spinBox(4, 256, d.context, tr("Tokens per sequence"), this);
    min_repeat_ = spinBox(2, 128, d.min_repeat, tr("Shortest string that repeats"), this);
    max_repeat_ = spinBox(2, 128, d.max_repeat, tr("Longest string that repeats"), this);
    fixed_repeat_ = new QCheckBox(tr("fixed length (= longest)"), this);
    fixed_repeat_->setToolTip(tr("Every string the same length: a one-layer model can then copy from a fixed offset"));
    random_start_ = new QCheckBox(tr("random start"), this);
    random_start_->setToolTip(tr("The copies after random filler tokens, not from the first position"));
    two_copies_ = new QCheckBox(tr("two copies, distinct tokens"), this);
    two_copies_->setToolTip(tr("The string's tokens distinct and written only twice (padding after), not repeated to fill the context"));
    mlp_ = new QCheckBox(tr("MLPs"), this);
    mlp_->setToolTip(tr("Add a GELU MLP to every layer (attention-only without)"));
    learning_rate_ = new QDoubleSpinBox(this);
    learning_rate_->setDecimals(4), learning_rate_->setRange(0.0001, 1.0), learning_rate_->setSingleStep(0.0005);
    learning_rate_->setValue(d.learning_rate);
    learning_rate_->setToolTip(tr("Adam's learning rate"));
    warmup_ = spinBox(0, 100'000, d.warmup_steps,
                      tr("Steps over which the learning rate ramps up from 0 (0: the full rate from the first step)"), this);
    batch_ = spinBox(1, 512, d.batch, tr("Sequences per step"), this);
    seed_ = spinBox(0, 1'000'000, int(d.seed), tr("Weights and data follow from the seed: the same seed, the same run"), this);
    const auto row = [this](const QString& label, QWidget* field) {
        QLabel* text = nullptr;
        if (!label.isEmpty()) {
            text = makeTypesetLabel(label, this);  // "d_model" typeset (issue 21)
            text->setBuddy(field);
            text->setToolTip(field->toolTip());
        }
        rows_.emplace_back(text, field);
    };
    row(tr("Layers"), layers_);
    row(tr("d_model"), d_model_);
    row(tr("Heads"), heads_);
    row(tr("Vocabulary"), vocab_);
    row(tr("Context"), context_);
    row(tr("Shortest string"), min_repeat_);
    row(tr("Longest string"), max_repeat_);
    row(QString(), fixed_repeat_);
    row(QString(), random_start_);
    row(QString(), two_copies_);
    row(QString(), mlp_);
    row(tr("Learning rate"), learning_rate_);
    row(tr("Warm-up steps"), warmup_);
    row(tr("Batch"), batch_);
    row(tr("Seed"), seed_);
    const char* names[] = {"layers", "d_model", "heads", "vocab", "context", "min_repeat", "max_repeat", "batch", "seed", "warmup"};
    int index = 0;
    for (QSpinBox* box : {layers_, d_model_, heads_, vocab_, context_, min_repeat_, max_repeat_, batch_, seed_, warmup_}) {
        box->setObjectName(QStringLiteral("training_") + QLatin1String(names[index++]));
        connect(box, &QSpinBox::valueChanged, this, &TrainingSettings::fieldChanged);
    }
    connect(learning_rate_, &QDoubleSpinBox::valueChanged, this, &TrainingSettings::fieldChanged);
    for (QCheckBox* box : {fixed_repeat_, random_start_, two_copies_, mlp_})
        connect(box, &QCheckBox::toggled, this, &TrainingSettings::fieldChanged);

    save_ = new QPushButton(tr("Save model..."), this);
    open_ = new QPushButton(tr("Open in HeadScope"), this);
    open_->setToolTip(tr("Open the model as trained so far in the other tabs (File > Open model)"));
    auto* files = new QHBoxLayout;
    files->addWidget(save_), files->addWidget(open_), files->addStretch(1);

    problem_ = new QLabel(this);
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    form_ = new QGridLayout;
    auto* column = new QVBoxLayout(this);
    column->addLayout(form_);
    column->addLayout(files);
    column->addWidget(problem_);
    column->addStretch(1);
    arrange(1);
}

void TrainingSettings::fieldChanged() {
    min_repeat_->setEnabled(!fixed_repeat_->isChecked());
    emit changed();
}

void TrainingSettings::setProblem(const QString& problem) { problem_->setText(problem); }

void TrainingSettings::arrange(int columns) {
    for (auto& [label, field] : rows_) {
        if (label) form_->removeWidget(label);
        form_->removeWidget(field);
    }
    const int n = int(rows_.size()), per_column = (n + columns - 1) / columns;
    for (int i = 0; i < n; ++i) {
        const auto& [label, field] = rows_[std::size_t(i)];
        const int r = i % per_column, c = 2 * (i / per_column);
        if (label) form_->addWidget(label, r, c);
        form_->addWidget(field, r, c + 1);
    }
    for (int c = 0; c < 4; ++c) form_->setColumnStretch(c, 0);
    form_->setColumnStretch(2 * columns - 1, 1);
}

QSize TrainingSettings::needs() const {
    int label = 0, field = 0, height = 0;
    for (const auto& [text, box] : rows_) {
        const QSize f = box->sizeHint().expandedTo(box->minimumSizeHint());
        const QSize l = text ? text->sizeHint() : QSize();
        label = std::max(label, l.width()), field = std::max(field, f.width());
        height += std::max(l.height(), f.height()) + std::max(form_->verticalSpacing(), 0);
    }
    const QMargins m = layout()->contentsMargins();
    const int files = save_->sizeHint().width() + open_->sizeHint().width() + std::max(form_->horizontalSpacing(), 0);
    return QSize(m.left() + m.right() + std::max(label + std::max(form_->horizontalSpacing(), 0) + field, files),
                 m.top() + m.bottom() + height + save_->sizeHint().height());
}

train::TrainConfig TrainingSettings::config() const {
    train::TrainConfig c;
    c.layers = layers_->value(), c.d_model = d_model_->value(), c.heads = heads_->value();
    c.vocab = vocab_->value(), c.context = context_->value();
    c.max_repeat = max_repeat_->value();
    c.min_repeat = fixed_repeat_->isChecked() ? c.max_repeat : min_repeat_->value();
    c.random_start = random_start_->isChecked(), c.two_copies = two_copies_->isChecked(), c.mlp = mlp_->isChecked();
    c.learning_rate = learning_rate_->value(), c.batch = batch_->value(), c.warmup_steps = warmup_->value();
    c.seed = std::uint64_t(seed_->value());
    return c;
}

void TrainingSettings::setConfig(const train::TrainConfig& c) {
    const QSignalBlocker blockers[] = {QSignalBlocker(layers_), QSignalBlocker(d_model_), QSignalBlocker(heads_),
                                       QSignalBlocker(vocab_), QSignalBlocker(context_), QSignalBlocker(min_repeat_),
                                       QSignalBlocker(max_repeat_), QSignalBlocker(batch_), QSignalBlocker(seed_), QSignalBlocker(warmup_),
                                       QSignalBlocker(learning_rate_), QSignalBlocker(fixed_repeat_),
                                       QSignalBlocker(random_start_), QSignalBlocker(two_copies_), QSignalBlocker(mlp_)};
    layers_->setValue(c.layers), d_model_->setValue(c.d_model), heads_->setValue(c.heads);
    vocab_->setValue(c.vocab), context_->setValue(c.context);
    max_repeat_->setValue(c.max_repeat), min_repeat_->setValue(c.min_repeat);
    fixed_repeat_->setChecked(c.min_repeat == c.max_repeat);
    random_start_->setChecked(c.random_start), two_copies_->setChecked(c.two_copies), mlp_->setChecked(c.mlp);
    learning_rate_->setValue(c.learning_rate), batch_->setValue(c.batch), seed_->setValue(int(c.seed));
    warmup_->setValue(c.warmup_steps);
    min_repeat_->setEnabled(!fixed_repeat_->isChecked());
}

}  // namespace headscope::ui
