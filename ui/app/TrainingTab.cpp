#include "TrainingTab.h"

#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QKeySequence>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QThread>
#include <QVBoxLayout>

#include "FittedLabel.h"
#include "FormWidgets.h"
#include "HeadScoresView.h"
#include "ProbeAttentionView.h"
#include "TrainingCurvesView.h"
#include "TrainingSettings.h"
#include "TrainingWorker.h"

namespace headscope::ui {

namespace {

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
    side_ = new TrainingSettings(this);
    buildButtons();
    bar_ = new QHBoxLayout;
    for (QPushButton* b : {start_, pause_, step_, reset_}) bar_->addWidget(b);
    bar_->addWidget(status_, 1);
    pages_ = new QTabBar(this);
    pages_->setObjectName(QStringLiteral("training_pages"));
    pages_->setDocumentMode(true), pages_->setExpanding(false), pages_->setVisible(false);
    connect(pages_, &QTabBar::tabBarClicked, this, [this](int index) {
        if (index >= 0) chosen_ = Page(pages_->tabData(index).toInt());
    });
    connect(pages_, &QTabBar::currentChanged, this, &TrainingTab::showPage);
    settings_area_ = static_cast<QScrollArea*>(scrollable(side_));  // "training_settings_scroll"
    settings_area_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* body = new QHBoxLayout;
    body->addWidget(settings_area_), body->addWidget(right_, 1);
    column_ = new QVBoxLayout(this);
    column_->addLayout(bar_), column_->addWidget(pages_), column_->addLayout(body, 1);
    margins_ = column_->contentsMargins(), spacing_ = column_->spacing();
    // What each plot asks for where it has the room (a compact room lowers their minimum heights).
    least_ = {least(curves_), least(scores_), least(attention_)};
    if (parent) parent->installEventFilter(this);
    resetTraining();
}

TrainingTab::~TrainingTab() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->pause(); }, Qt::QueuedConnection);
    thread_->quit(), thread_->wait();
}

void TrainingTab::buildButtons() {
    start_ = new QPushButton(tr("Start"), this);
    pause_ = new QPushButton(tr("Pause"), this);
    step_ = new QPushButton(tr("Step"), this);
    reset_ = new QPushButton(tr("Reset"), this);
    // Keys for the class: shown in the tooltips, active while the tab is shown.
    start_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    pause_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    start_->setToolTip(tr("Train until paused (%1)").arg(start_->shortcut().toString(QKeySequence::NativeText)));
    pause_->setToolTip(tr("Pause training (%1)").arg(pause_->shortcut().toString(QKeySequence::NativeText)));
    step_->setToolTip(tr("One training step"));
    connect(start_, &QPushButton::clicked, this, &TrainingTab::startTraining);
    connect(pause_, &QPushButton::clicked, this, &TrainingTab::pauseTraining);
    connect(step_, &QPushButton::clicked, this, &TrainingTab::stepTraining);
    connect(reset_, &QPushButton::clicked, this, &TrainingTab::resetTraining);
    connect(side_->saveButton(), &QPushButton::clicked, this, &TrainingTab::saveModelDialog);
    connect(side_->openButton(), &QPushButton::clicked, this, &TrainingTab::openInHeadScope);
    connect(side_, &TrainingSettings::changed, this, &TrainingTab::resetTraining);
    status_ = new FittedLabel(this);
    status_->setObjectName(QStringLiteral("training_readout"));
    status_->setExplanation(tr("The run so far: training steps, the model's parameters, the held-out loss and the accuracy on the repeated half"));
}

// Which room the tab has: that of the scroll area or tab page holding it (its own size can be
// its minimum, larger than what is shown), and what each arrangement needs in it.
void TrainingTab::fitRoom() {
    const QWidget* host = parentWidget();
    const QSize room = host ? host->contentsRect().size() : size();
    const QMargins m = margins_;
    const int spacing = std::max(spacing_, 0);
    const int bar = start_->sizeHint().height() + spacing + m.top() + m.bottom();
    const int scroll_bar = settings_area_->verticalScrollBar()->sizeHint().width();
    const QSize settings = side_->needs();
    const auto [curves, scores, attention] = least_;
    const int handle = right_->handleWidth();
    // The loss plot beside others only where it is 360 px wide: an axis rect of 200 between two labelled axes.
    const QSize plots(std::max({curves.width(), scores.width(), 360}) + handle + attention.width(),
                      std::max(curves.height() + handle + scores.height(), attention.height()));
    const int across = m.left() + m.right() + spacing;
    const int pages = pages_->sizeHint().height();
    Room wanted = Room::Pages;
    if (room.width() >= across + settings.width() + scroll_bar + plots.width() &&
        room.height() >= bar + std::max(plots.height(), std::min(settings.height(), 2 * plots.height())))
        wanted = Room::Wide;
    else if (room.width() >= across + plots.width() && room.height() >= bar + pages + plots.height())
        wanted = Room::Plots;
    // One page under the buttons and the pages' bar not high enough for a plot (a lesson's strip
    // under the tab at 2x: 182 of 384 px): the buttons, the readout and the bar share one line.
    const bool compact = wanted == Room::Pages && room.height() < bar + pages + std::max({curves.height(), scores.height(), attention.height()});
    if (wanted == room_ && compact == compact_ && arranged_) return;
    room_ = wanted, arranged_ = true;
    const QSignalBlocker quiet(pages_);  // the pages of this room, the one chosen shown
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
    setCompact(compact);
    // Two columns of settings where a page has the width for them, one beside the plots.
    const int two_columns = 2 * settings.width() + scroll_bar;
    side_->arrange(room_ != Room::Wide && room.width() >= two_columns ? 2 : 1);
    settings_area_->setMinimumWidth(room_ == Room::Wide ? settings.width() + scroll_bar : 0);
    settings_area_->setMaximumWidth(room_ == Room::Wide ? std::max(300, settings_area_->minimumWidth()) : QWIDGETSIZE_MAX);
    showChosen();
}

// The buttons as symbols (their tool tips name them) on the line of the pages' bar, the
// readout between, narrow margins, and plots that take the height left; or as before.
void TrainingTab::setCompact(bool compact) {
    compact_ = compact;
    bar_->removeWidget(pages_), column_->removeWidget(pages_);
    if (compact) bar_->insertWidget(0, pages_);
    else column_->insertWidget(1, pages_);
    column_->setContentsMargins(compact ? QMargins(2, 2, 2, 0) : margins_);
    column_->setSpacing(compact ? 2 : spacing_);
    const struct {
        QPushButton* button;
        QString text;
        QStyle::StandardPixmap icon;
    } buttons[] = {{start_, tr("Start"), QStyle::SP_MediaPlay},
                   {pause_, tr("Pause"), QStyle::SP_MediaPause},
                   {step_, tr("Step"), QStyle::SP_MediaSkipForward},
                   {reset_, tr("Reset"), QStyle::SP_BrowserReload}};
    for (const auto& b : buttons) {
        b.button->setText(compact ? QString() : b.text);
        b.button->setIcon(compact ? style()->standardIcon(b.icon, nullptr, b.button) : QIcon());
        b.button->setAccessibleName(b.text);
    }
    // A page's plot as high as the room leaves it: its axis rect is then what the class sees.
    const int low = kCompactPlotHeight;
    curves_->setMinimumHeight(compact ? std::min(low, least_[0].height()) : least_[0].height());
    scores_->setMinimumHeight(compact ? std::min(low, least_[1].height()) : least_[1].height());
    attention_->setMinimumHeight(compact ? 0 : least_[2].height());  // its own layout's least (heads in a row)
}

bool TrainingTab::showPart(const QString& part) {
    static const std::pair<const char*, Page> parts[] = {
        {"curves", CurvesPage}, {"scores", ScoresPage}, {"attention", AttentionPage}, {"settings", SettingsPage}};
    chosen_ = NoPage;
    for (const auto& [name, page] : parts)
        if (part == QLatin1String(name)) chosen_ = page;
    // Where the curves and the head scores stand one above the other, the one named gets two
    // thirds of their height (lesson 7 step 2 at 1x: the loss curves were the smaller).
    if (chosen_ == CurvesPage || chosen_ == ScoresPage) {
        const int total = std::max(plots_->height(), 3);
        plots_->setSizes(chosen_ == CurvesPage ? QList<int>{2 * total / 3, total / 3} : QList<int>{total / 3, 2 * total / 3});
    }
    showChosen();
    return chosen_ != NoPage || part.isEmpty();
}

// The page chosen (by a click or a lesson step) where this room has it, the plots' page for a
// plot, else the first.
void TrainingTab::showChosen() {
    int index = 0;
    for (int i = 0; i < pages_->count(); ++i) {
        const int page = pages_->tabData(i).toInt();
        if (page == chosen_ || (page == PlotsPage && chosen_ != SettingsPage)) index = i;
        if (page == chosen_) break;
    }
    {
        const QSignalBlocker quiet(pages_);
        pages_->setCurrentIndex(pages_->count() > 0 ? index : -1);
    }
    showPage(pages_->currentIndex());
}

TrainingTab::Page TrainingTab::shownPage() const {
    if (room_ == Room::Wide || pages_->currentIndex() < 0) return NoPage;
    return Page(pages_->tabData(pages_->currentIndex()).toInt());
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
    // A room made compact while the layout was invalid skips this resize (its pages stayed as
    // high as before, under the window's edge): laid out at the new size now.
    if (layout()->geometry().size() != size()) layout()->setGeometry(rect());
}

train::TrainConfig TrainingTab::settings() const { return side_->config(); }

QSpinBox* TrainingTab::seedBox() const { return side_->seedBox(); }

void TrainingTab::setSettings(const train::TrainConfig& c) {
    side_->setConfig(c);
    resetTraining();
}

void TrainingTab::resetTraining() {
    const train::TrainConfig c = settings();
    const std::string problem = c.problem();
    side_->setProblem(QString::fromStdString(problem));
    for (QPushButton* b : {start_, pause_, step_, side_->saveButton(), side_->openButton()}) b->setEnabled(problem.empty());
    if (!problem.empty()) return;  // the last valid run stays on screen
    QMetaObject::invokeMethod(worker_, [w = worker_, c] { w->reset(c); }, Qt::QueuedConnection);
}

void TrainingTab::startTraining() {
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->start(); }, Qt::QueuedConnection);
}

void TrainingTab::trainUntil(TrainingWorker::StopWhen stop) {
    QMetaObject::invokeMethod(worker_, [w = worker_, stop = std::move(stop)] { w->start(stop); }, Qt::QueuedConnection);
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
    // Which model: this tab trains its own, not the layer the controls and the status line show (issue 36 item 7).
    const QString model = tr("this tab's model, %1 layers × %2 heads, d_model %3")
                              .arg(f.config.layers).arg(f.config.heads).arg(f.config.d_model);
    QString text = tr("%6: step %1 · %2 parameters · loss %3 (repeated half %4) · accuracy on the repeated half %5%")
                       .arg(f.steps).arg(f.parameters).arg(e.loss, 0, 'f', 3).arg(e.repeated_loss, 0, 'f', 3)
                       .arg(100 * e.repeated_accuracy, 0, 'f', 1).arg(model);
    if (f.running) text += tr(" · %1 steps/s").arg(f.steps_per_second, 0, 'f', 0);
    status_->setVariants({text,
                          tr("%5: step %1 · loss %2 (repeated half %3) · accuracy %4%").arg(f.steps).arg(e.loss, 0, 'f', 3)
                              .arg(e.repeated_loss, 0, 'f', 3).arg(100 * e.repeated_accuracy, 0, 'f', 1).arg(model),
                          tr("step %1 · loss %2 (repeated half %3) · accuracy %4%").arg(f.steps).arg(e.loss, 0, 'f', 3)
                              .arg(e.repeated_loss, 0, 'f', 3).arg(100 * e.repeated_accuracy, 0, 'f', 1),
                          tr("step %1 · loss %2 · repeated %3").arg(f.steps).arg(e.loss, 0, 'f', 2).arg(e.repeated_loss, 0, 'f', 2),
                          tr("step %1 · loss %2").arg(f.steps).arg(e.loss, 0, 'f', 2), tr("step %1").arg(f.steps)});
    start_->setEnabled(!f.running);
    pause_->setEnabled(f.running);
    emit frameShown();
}

}  // namespace headscope::ui
