#include "TrainingTab.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QKeySequence>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QThread>
#include <QVBoxLayout>

#include "HeadScoresView.h"
#include "ProbeAttentionView.h"
#include "TrainingCurvesView.h"
#include "TrainingWorker.h"

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

TrainingTab::TrainingTab(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("training_tab"));
    thread_ = new QThread(this);
    thread_->setObjectName(QStringLiteral("training"));
    worker_ = new TrainingWorker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &TrainingWorker::frameReady, this, &TrainingTab::showFrame, Qt::QueuedConnection);
    connect(worker_, &TrainingWorker::saved, this, &TrainingTab::onSaved, Qt::QueuedConnection);
    thread_->start();

    curves_ = new TrainingCurvesView(this);
    scores_ = new HeadScoresView(this);
    attention_ = new ProbeAttentionView(this);
    auto* plots = new QSplitter(Qt::Vertical, this);
    plots->addWidget(curves_);
    plots->addWidget(scores_);
    auto* right = new QSplitter(Qt::Horizontal, this);
    right->addWidget(plots);
    right->addWidget(attention_);
    right->setStretchFactor(0, 3), right->setStretchFactor(1, 2);

    auto* layout = new QHBoxLayout(this);
    layout->addWidget(buildSettings());
    layout->addWidget(right, 1);
    resetTraining();
}

TrainingTab::~TrainingTab() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->pause(); }, Qt::QueuedConnection);
    thread_->quit();
    thread_->wait();
}

QWidget* TrainingTab::buildSettings() {
    const train::TrainConfig d;
    auto* panel = new QWidget(this);
    panel->setMaximumWidth(300);
    auto* form = new QFormLayout;
    layers_ = spinBox(1, train::TrainConfig::kMaxLayers, d.layers, tr("Layers: 2 can form an induction head, 1 cannot"), panel);
    d_model_ = spinBox(2, 256, d.d_model, tr("Width of the residual stream"), panel);
    heads_ = spinBox(1, 16, d.heads, tr("Heads per layer (must divide d_model)"), panel);
    vocab_ = spinBox(4, train::TrainConfig::kMaxVocab, d.vocab, tr("Tokens in the vocabulary (saved as one character each)"), panel);
    context_ = spinBox(4, 256, d.context, tr("Tokens per sequence"), panel);
    min_repeat_ = spinBox(2, 128, d.min_repeat, tr("Shortest string that repeats"), panel);
    max_repeat_ = spinBox(2, 128, d.max_repeat, tr("Longest string that repeats"), panel);
    fixed_repeat_ = new QCheckBox(tr("fixed length (= longest)"), panel);
    fixed_repeat_->setToolTip(tr("Every string the same length: a one-layer model can then copy from a fixed offset"));
    random_start_ = new QCheckBox(tr("random start"), panel);
    random_start_->setToolTip(tr("The copies after random filler tokens, not from the first position"));
    two_copies_ = new QCheckBox(tr("two copies, distinct tokens"), panel);
    two_copies_->setToolTip(tr("The string's tokens distinct and written only twice (padding after), not repeated to fill the context"));
    mlp_ = new QCheckBox(tr("MLPs"), panel);
    mlp_->setToolTip(tr("Add a GELU MLP to every layer (attention-only without)"));
    learning_rate_ = new QDoubleSpinBox(panel);
    learning_rate_->setDecimals(4), learning_rate_->setRange(0.0001, 1.0), learning_rate_->setSingleStep(0.0005);
    learning_rate_->setValue(d.learning_rate);
    learning_rate_->setToolTip(tr("Adam's learning rate"));
    warmup_ = spinBox(0, 100'000, d.warmup_steps,
                      tr("Steps over which the learning rate ramps up from 0 (0: the full rate from the first step)"), panel);
    batch_ = spinBox(1, 512, d.batch, tr("Sequences per step"), panel);
    seed_ = spinBox(0, 1'000'000, int(d.seed), tr("Weights and data follow from the seed: the same seed, the same run"), panel);
    form->addRow(tr("Layers"), layers_);
    form->addRow(tr("d_model"), d_model_);
    form->addRow(tr("Heads"), heads_);
    form->addRow(tr("Vocabulary"), vocab_);
    form->addRow(tr("Context"), context_);
    form->addRow(tr("Shortest string"), min_repeat_);
    form->addRow(tr("Longest string"), max_repeat_);
    form->addRow(QString(), fixed_repeat_);
    form->addRow(QString(), random_start_);
    form->addRow(QString(), two_copies_);
    form->addRow(QString(), mlp_);
    form->addRow(tr("Learning rate"), learning_rate_);
    form->addRow(tr("Warm-up steps"), warmup_);
    form->addRow(tr("Batch"), batch_);
    form->addRow(tr("Seed"), seed_);
    const char* names[] = {"layers", "d_model", "heads", "vocab", "context", "min_repeat", "max_repeat", "batch", "seed", "warmup"};
    int index = 0;
    for (QSpinBox* box : {layers_, d_model_, heads_, vocab_, context_, min_repeat_, max_repeat_, batch_, seed_, warmup_}) {
        box->setObjectName(QStringLiteral("training_") + QLatin1String(names[index++]));
        connect(box, &QSpinBox::valueChanged, this, &TrainingTab::settingsChanged);
    }
    connect(learning_rate_, &QDoubleSpinBox::valueChanged, this, &TrainingTab::settingsChanged);
    for (QCheckBox* box : {fixed_repeat_, random_start_, two_copies_, mlp_})
        connect(box, &QCheckBox::toggled, this, &TrainingTab::settingsChanged);

    start_ = new QPushButton(tr("Start"), panel);
    pause_ = new QPushButton(tr("Pause"), panel);
    step_ = new QPushButton(tr("Step"), panel);
    reset_ = new QPushButton(tr("Reset"), panel);
    save_ = new QPushButton(tr("Save model..."), panel);
    open_ = new QPushButton(tr("Open in HeadScope"), panel);
    // Keys for the class: shown in the tooltips, active while the tab is shown.
    start_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    pause_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    start_->setToolTip(tr("Train until paused (%1)").arg(start_->shortcut().toString(QKeySequence::NativeText)));
    pause_->setToolTip(tr("Pause training (%1)").arg(pause_->shortcut().toString(QKeySequence::NativeText)));
    step_->setToolTip(tr("One training step"));
    open_->setToolTip(tr("Open the model as trained so far in the other tabs (File > Open model)"));
    connect(start_, &QPushButton::clicked, this, &TrainingTab::startTraining);
    connect(pause_, &QPushButton::clicked, this, &TrainingTab::pauseTraining);
    connect(step_, &QPushButton::clicked, this, &TrainingTab::stepTraining);
    connect(reset_, &QPushButton::clicked, this, &TrainingTab::resetTraining);
    connect(save_, &QPushButton::clicked, this, &TrainingTab::saveModelDialog);
    connect(open_, &QPushButton::clicked, this, &TrainingTab::openInHeadScope);
    auto* buttons = new QGridLayout;
    buttons->addWidget(start_, 0, 0), buttons->addWidget(pause_, 0, 1);
    buttons->addWidget(step_, 1, 0), buttons->addWidget(reset_, 1, 1);
    buttons->addWidget(save_, 2, 0), buttons->addWidget(open_, 2, 1);

    problem_ = new QLabel(panel);
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    status_ = new QLabel(panel);
    status_->setWordWrap(true);
    auto* column = new QVBoxLayout(panel);
    column->addLayout(form);
    column->addLayout(buttons);
    column->addWidget(problem_);
    column->addWidget(status_);
    column->addStretch(1);
    return panel;
}

train::TrainConfig TrainingTab::settings() const {
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

void TrainingTab::setSettings(const train::TrainConfig& c) {
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
    resetTraining();
}

void TrainingTab::settingsChanged() {
    min_repeat_->setEnabled(!fixed_repeat_->isChecked());
    resetTraining();
}

void TrainingTab::resetTraining() {
    const train::TrainConfig c = settings();
    const std::string problem = c.problem();
    problem_->setText(QString::fromStdString(problem));
    for (QPushButton* b : {start_, pause_, step_, save_, open_}) b->setEnabled(problem.empty());
    if (!problem.empty()) return;  // the last valid run stays on screen
    QMetaObject::invokeMethod(worker_, [w = worker_, c] { w->reset(c); }, Qt::QueuedConnection);
}

void TrainingTab::startTraining() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->start(); }, Qt::QueuedConnection);
}

void TrainingTab::pauseTraining() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->pause(); }, Qt::QueuedConnection);
}

void TrainingTab::stepTraining() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->step(1); }, Qt::QueuedConnection);
}

void TrainingTab::saveModelDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Save the trained model (a GPT-2 folder) in"));
    if (dir.isEmpty()) return;
    open_after_save_ = false;
    QMetaObject::invokeMethod(worker_, [w = worker_, dir] { w->save(dir); }, Qt::QueuedConnection);
}

void TrainingTab::openInHeadScope() {
    open_dir_ = std::make_unique<QTemporaryDir>();
    if (!open_dir_->isValid()) {
        QMessageBox::warning(this, tr("Open in HeadScope"), tr("Cannot create a temporary folder for the model."));
        return;
    }
    open_after_save_ = true;
    const QString dir = open_dir_->path();
    QMetaObject::invokeMethod(worker_, [w = worker_, dir] { w->save(dir); }, Qt::QueuedConnection);
}

void TrainingTab::onSaved(const QString& directory, const QString& error) {
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Save model"), error);
        return;
    }
    if (open_after_save_) emit openModelRequested(directory);
    else status_->setText(tr("saved to %1").arg(directory));
    open_after_save_ = false;
}

void TrainingTab::showFrame(TrainingFramePtr frame) {
    frame_ = std::move(frame);
    const TrainingFrame& f = *frame_;
    curves_->setEvaluations(f.evaluations);
    scores_->setEvaluations(f.evaluations, f.config.heads);
    attention_->setRun(f.snapshots, f.evaluations, f.config.layers, f.config.heads);
    const train::Evaluation& e = f.evaluations.back();
    QString text = tr("step %1 · %2 parameters · loss %3 (repeated half %4) · accuracy on the repeated half %5%")
                       .arg(f.steps).arg(f.parameters).arg(e.loss, 0, 'f', 3).arg(e.repeated_loss, 0, 'f', 3)
                       .arg(100 * e.repeated_accuracy, 0, 'f', 1);
    if (f.running) text += tr(" · %1 steps/s").arg(f.steps_per_second, 0, 'f', 0);
    status_->setText(text);
    start_->setEnabled(!f.running);
    pause_->setEnabled(f.running);
    emit frameShown();
}

}  // namespace headscope::ui
