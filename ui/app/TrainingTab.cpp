#include "TrainingTab.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QKeySequence>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QThread>
#include <QVBoxLayout>

#include "FittedLabel.h"
#include "FormWidgets.h"
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

// What the pages of the bar show (its tabs' data).
enum Page { CurvesPage, ScoresPage, AttentionPage, SettingsPage, PlotsPage };

// A widget's least size as a layout grants it.
QSize least(const QWidget* w) { return w->minimumSize().expandedTo(w->minimumSizeHint()); }

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
    plots_ = new QSplitter(Qt::Vertical, this);
    plots_->addWidget(curves_), plots_->addWidget(scores_);
    right_ = new QSplitter(Qt::Horizontal, this);
    right_->addWidget(plots_), right_->addWidget(attention_);
    right_->setStretchFactor(0, 3), right_->setStretchFactor(1, 2);

    // Above everything: the buttons a class needs and what the run has reached, on one line.
    side_ = buildSettings();
    auto* bar = new QHBoxLayout;
    for (QPushButton* b : {start_, pause_, step_, reset_}) bar->addWidget(b);
    bar->addWidget(status_, 1);
    pages_ = new QTabBar(this);
    pages_->setObjectName(QStringLiteral("training_pages"));
    pages_->setDocumentMode(true), pages_->setExpanding(false), pages_->setVisible(false);
    connect(pages_, &QTabBar::tabBarClicked, this, [this](int index) {
        settings_chosen_ = index >= 0 && pages_->tabData(index).toInt() == SettingsPage;
    });
    connect(pages_, &QTabBar::currentChanged, this, &TrainingTab::showPage);
    settings_area_ = static_cast<QScrollArea*>(scrollable(side_));  // "training_settings_scroll"
    settings_area_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* body = new QHBoxLayout;
    body->addWidget(settings_area_), body->addWidget(right_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar), layout->addWidget(pages_), layout->addLayout(body, 1);
    arrangeSettings(1);
    if (parent) parent->installEventFilter(this);
    resetTraining();
}

TrainingTab::~TrainingTab() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->pause(); }, Qt::QueuedConnection);
    thread_->quit(), thread_->wait();
}

QWidget* TrainingTab::buildSettings() {
    const train::TrainConfig d;
    auto* panel = new QWidget(this);
    panel->setObjectName(QStringLiteral("training_settings"));
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
    const auto row = [this, panel](const QString& label, QWidget* field) {
        QLabel* text = nullptr;
        if (!label.isEmpty()) {
            text = makeTypesetLabel(label, panel);  // "d_model" typeset (issue 21)
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
        connect(box, &QSpinBox::valueChanged, this, &TrainingTab::settingsChanged);
    }
    connect(learning_rate_, &QDoubleSpinBox::valueChanged, this, &TrainingTab::settingsChanged);
    for (QCheckBox* box : {fixed_repeat_, random_start_, two_copies_, mlp_})
        connect(box, &QCheckBox::toggled, this, &TrainingTab::settingsChanged);

    start_ = new QPushButton(tr("Start"), this);
    pause_ = new QPushButton(tr("Pause"), this);
    step_ = new QPushButton(tr("Step"), this);
    reset_ = new QPushButton(tr("Reset"), this);
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
    auto* files = new QHBoxLayout;
    files->addWidget(save_), files->addWidget(open_), files->addStretch(1);

    problem_ = new QLabel(panel);
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    status_ = new FittedLabel(this);
    status_->setObjectName(QStringLiteral("training_readout"));
    status_->setExplanation(tr("The run so far: training steps, the model's parameters, the held-out loss and the accuracy on the repeated half"));
    form_ = new QGridLayout;
    auto* column = new QVBoxLayout(panel);
    column->addLayout(form_);
    column->addLayout(files);
    column->addWidget(problem_);
    column->addStretch(1);
    return panel;
}

// The settings as `columns` pairs of label and field side by side, in reading order down each column.
void TrainingTab::arrangeSettings(int columns) {
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

// What one column of settings needs, from its widgets' own hints (a layout not shown yet counts
// its widgets as hidden, and the settings may stand in two columns now).
QSize TrainingTab::settingsNeeds() const {
    int label = 0, field = 0, height = 0;
    for (const auto& [text, box] : rows_) {
        const QSize f = box->sizeHint().expandedTo(box->minimumSizeHint());
        const QSize l = text ? text->sizeHint() : QSize();
        label = std::max(label, l.width()), field = std::max(field, f.width());
        height += std::max(l.height(), f.height()) + std::max(form_->verticalSpacing(), 0);
    }
    const QMargins m = side_->layout()->contentsMargins();
    const int files = save_->sizeHint().width() + open_->sizeHint().width() + std::max(form_->horizontalSpacing(), 0);
    return QSize(m.left() + m.right() + std::max(label + std::max(form_->horizontalSpacing(), 0) + field, files),
                 m.top() + m.bottom() + height + save_->sizeHint().height());
}

// Which room the tab has: that of the scroll area or tab page holding it (its own size can be
// its minimum, larger than what is shown), and what each arrangement needs in it.
void TrainingTab::fitRoom() {
    const QWidget* host = parentWidget();
    const QSize room = host ? host->contentsRect().size() : size();
    const QMargins m = layout()->contentsMargins();
    const int spacing = std::max(layout()->spacing(), 0);
    const int bar = start_->sizeHint().height() + spacing + m.top() + m.bottom();
    const int scroll_bar = settings_area_->verticalScrollBar()->sizeHint().width();
    const QSize settings = settingsNeeds();
    const QSize curves = least(curves_), scores = least(scores_), attention = least(attention_);
    const int handle = right_->handleWidth();
    // The loss plot beside others only where it is 360 px wide: an axis rect of 200 between two labelled axes.
    const QSize plots(std::max({curves.width(), scores.width(), 360}) + handle + attention.width(),
                      std::max(curves.height() + handle + scores.height(), attention.height()));
    const int across = m.left() + m.right() + spacing;
    Room wanted = Room::Pages;
    if (room.width() >= across + settings.width() + scroll_bar + plots.width() &&
        room.height() >= bar + std::max(plots.height(), std::min(settings.height(), 2 * plots.height())))
        wanted = Room::Wide;
    else if (room.width() >= across + plots.width() && room.height() >= bar + pages_->sizeHint().height() + plots.height())
        wanted = Room::Plots;
    if (wanted == room_ && arranged_) return;
    room_ = wanted, arranged_ = true;
    const QSignalBlocker quiet(pages_);  // the pages of this room, the first or the Settings shown
    while (pages_->count() > 0) pages_->removeTab(0);
    if (room_ == Room::Plots) {
        pages_->setTabData(pages_->addTab(tr("Curves and heads")), PlotsPage);
    } else if (room_ == Room::Pages) {
        pages_->setTabData(pages_->addTab(tr("Loss")), CurvesPage);
        pages_->setTabData(pages_->addTab(tr("Head scores")), ScoresPage);
        pages_->setTabData(pages_->addTab(tr("Attention")), AttentionPage);
    }
    if (room_ != Room::Wide) pages_->setTabData(pages_->addTab(tr("Settings")), SettingsPage);
    pages_->setVisible(room_ != Room::Wide);
    // Two columns of settings where a page has the width for them, one beside the plots.
    const int two_columns = 2 * settings.width() + scroll_bar;
    arrangeSettings(room_ != Room::Wide && room.width() >= two_columns ? 2 : 1);
    settings_area_->setMinimumWidth(room_ == Room::Wide ? settings.width() + scroll_bar : 0);
    settings_area_->setMaximumWidth(room_ == Room::Wide ? std::max(300, settings_area_->minimumWidth()) : QWIDGETSIZE_MAX);
    pages_->setCurrentIndex(settings_chosen_ && room_ != Room::Wide ? pages_->count() - 1 : 0);
    showPage(pages_->currentIndex());
}

void TrainingTab::showPage(int index) {
    const int page = room_ == Room::Wide || index < 0 ? -1 : pages_->tabData(index).toInt();
    const bool all = page < 0 || page == PlotsPage;
    settings_area_->setVisible(page < 0 || page == SettingsPage), right_->setVisible(page != SettingsPage);
    curves_->setVisible(all || page == CurvesPage), scores_->setVisible(all || page == ScoresPage);
    plots_->setVisible(all || page == CurvesPage || page == ScoresPage), attention_->setVisible(all || page == AttentionPage);
}

bool TrainingTab::event(QEvent* event) {
    if (event->type() == QEvent::ParentAboutToChange && parentWidget()) parentWidget()->removeEventFilter(this);
    if (event->type() == QEvent::ParentChange && parentWidget()) parentWidget()->installEventFilter(this);
    return QWidget::event(event);
}

bool TrainingTab::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) fitRoom();
    return QWidget::eventFilter(watched, event);
}

void TrainingTab::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitRoom();
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
    else status_->setVariants({tr("saved to %1").arg(directory)});
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
    status_->setVariants({text,
                          tr("step %1 · loss %2 (repeated half %3) · accuracy %4%").arg(f.steps).arg(e.loss, 0, 'f', 3)
                              .arg(e.repeated_loss, 0, 'f', 3).arg(100 * e.repeated_accuracy, 0, 'f', 1),
                          tr("step %1 · loss %2 · repeated %3").arg(f.steps).arg(e.loss, 0, 'f', 2).arg(e.repeated_loss, 0, 'f', 2),
                          tr("step %1 · loss %2").arg(f.steps).arg(e.loss, 0, 'f', 2)});
    start_->setEnabled(!f.running);
    pause_->setEnabled(f.running);
    emit frameShown();
}

}  // namespace headscope::ui
