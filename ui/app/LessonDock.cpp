#include "LessonDock.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <QAction>
#include <QResizeEvent>
#include <QTextDocument>
#include <QTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "CircuitView.h"
#include "DockTitleBar.h"
#include "FusedProjectionsView.h"
#include "HeadGridView.h"
#include "MainWindow.h"
#include "lessons/Reparametrize.h"
#include "Session.h"
#include "Teaching.h"
#include "TeachingActions.h"
#include "TrainingTab.h"

namespace headscope::ui {

LessonDock::LessonDock(MainWindow* window) : QDockWidget(tr("Lesson"), window), window_(window) {
    setObjectName(QStringLiteral("lesson_dock"));
    auto* frame = new QWidget;
    auto* column = new QBoxLayout(QBoxLayout::TopToBottom, frame);
    heading_ = new QLabel;
    heading_->setObjectName(QStringLiteral("lesson_heading"));
    heading_->setWordWrap(true);
    heading_->setTextFormat(Qt::RichText);
    text_ = new QTextBrowser;
    text_->setObjectName(QStringLiteral("lesson_text"));
    text_->setOpenExternalLinks(false);
    counter_ = new QLabel;
    counter_->setObjectName(QStringLiteral("lesson_counter"));
    counter_->setAlignment(Qt::AlignCenter);
    previous_ = new QPushButton(tr("\u25c0 Previous"));
    previous_->setObjectName(QStringLiteral("lesson_previous"));
    previous_->setToolTip(tr("Previous step (Page Up)"));
    next_ = new QPushButton(tr("Next \u25b6"));
    next_->setObjectName(QStringLiteral("lesson_next"));
    next_->setToolTip(tr("Next step (Page Down)"));
    reset_ = new QPushButton(tr("Reset this step"));
    reset_->setObjectName(QStringLiteral("lesson_reset"));
    reset_->setToolTip(tr("Put back this step's settings after you changed them"));
    // Beside the view: heading, text, then the buttons in a row. As a strip below the view
    // (setStrip): the text on the left, the buttons stacked on its right.
    text_column_ = new QVBoxLayout;
    text_column_->addWidget(heading_);
    text_column_->addWidget(text_, 1);
    buttons_ = new QBoxLayout(QBoxLayout::LeftToRight);
    buttons_->addWidget(previous_);
    buttons_->addWidget(counter_, 1);
    buttons_->addWidget(next_);
    button_column_ = new QBoxLayout(QBoxLayout::TopToBottom);
    button_column_->addLayout(buttons_);
    button_column_->addWidget(reset_);
    column->setDirection(QBoxLayout::TopToBottom);
    column->addLayout(text_column_, 1);
    column->addLayout(button_column_);
    layout_ = column;
    setWidget(frame);
    window_->installEventFilter(this);
    // Page Up / Page Down anywhere in the window (a presenter's remote sends them).
    previous_action_ = new QAction(tr("Previous lesson step"), this);
    previous_action_->setShortcut(QKeySequence(Qt::Key_PageUp));
    next_action_ = new QAction(tr("Next lesson step"), this);
    next_action_->setShortcut(QKeySequence(Qt::Key_PageDown));
    for (QAction* action : {previous_action_, next_action_}) {
        action->setShortcutContext(Qt::WindowShortcut);
        window_->addAction(action);
    }
    connect(previous_action_, &QAction::triggered, this, &LessonDock::previous);
    connect(next_action_, &QAction::triggered, this, &LessonDock::next);
    connect(previous_, &QPushButton::clicked, this, &LessonDock::previous);
    connect(next_, &QPushButton::clicked, this, &LessonDock::next);
    connect(reset_, &QPushButton::clicked, this, &LessonDock::resetStep);
    connect(window_->session(), &Session::changed, this, &LessonDock::fill);
    connect(window_->session(), &Session::equivalenceReady, this, &LessonDock::fill);
    if (auto* training = window_->findChild<TrainingTab*>()) {
        actions_ = new TeachingActions(training, window_->session(), this);
        connect(actions_, &TeachingActions::statusChanged, this, [this]() { fill(window_->session()->analysis()); });
        connect(actions_, &TeachingActions::finished, this, [this]() {
            // Opening a model brings the Model tab forward; the step's own view comes back.
            if (lesson_) window_->showView(lesson_->steps[std::size_t(step_)].show);
        });
    }
    updateButtons();
}

void LessonDock::setLesson(const lessons::Lesson& lesson) {
    lesson_ = lesson;
    heading_->setText(tr("<b>Lesson %1 \u00b7 %2</b>").arg(lesson.number).arg(QString::fromStdString(lesson.title)));
    goToStep(0);
}

QString LessonDock::shownText() const { return text_->toPlainText(); }
QString LessonDock::counterText() const { return counter_->text(); }

void LessonDock::goToStep(int step) {
    if (!lesson_) return;
    step_ = std::clamp(step, 0, stepCount() - 1);
    html_ = tr("<p><i>Computing this step\u2026</i></p>");
    text_->setHtml(html_);
    updateButtons();
    const lessons::LessonStep& shown = lesson_->steps[std::size_t(step_)];
    window_->applyLessonStep(shown);
    if (actions_) actions_->run(shown.actions);
    if (auto a = window_->session()->analysis(); a && (a->config == shown.session.config || shown.actions.any()))
        fill(a);  // the same configuration as before: no new analysis will come
    emit stepShown(step_);
}

void LessonDock::next() { if (lesson_ && step_ + 1 < stepCount()) goToStep(step_ + 1); }
void LessonDock::previous() { if (lesson_ && step_ > 0) goToStep(step_ - 1); }
void LessonDock::resetStep() { goToStep(step_); }

void LessonDock::fill(std::shared_ptr<const Analysis> analysis) {
    if (!lesson_ || !analysis) return;
    const lessons::LessonStep& step = lesson_->steps[std::size_t(step_)];
    // The head is selected again once the step's analysis is there: before, the previous
    // analysis may have had fewer heads and the session clamped the selection.
    if (analysis->config == step.session.config && window_->session()->head() != step.head)
        window_->session()->setHead(step.head);
    applyToViews(analysis);
    std::map<std::string, std::string> values;
    try {
        values = lessons::placeholderValues(*analysis, step.head);
    } catch (const std::exception&) {
        // A trained model's layer may lack what a number needs; a step using one says so below.
    }
    try {
        QString html = stepHtml(*lesson_, step_, values);
        if (actions_ && !actions_->status().isEmpty()) html += QStringLiteral("<p>%1</p>").arg(actions_->status());
        if (!(analysis->config == step.session.config) && !step.actions.any() && window_->session()->source().generated())
            html += tr("<p style=\"color:#8a5a00\"><i>You changed the settings: the numbers above follow them. "
                       "\u201cReset this step\u201d puts the step's settings back.</i></p>");
        html_ = html;
    } catch (const std::exception& e) {
        html_ = tr("<p>This step's text cannot be filled: %1</p>").arg(QString::fromStdString(e.what()).toHtmlEscaped());
    }
    text_->setHtml(html_);
    fitStrip();
}

void LessonDock::applyToViews(const std::shared_ptr<const Analysis>& analysis) {
    // Runs after the views took the session's analysis (their connections came first), so
    // the transformed weights are what is drawn until the next analysis or step.
    const lessons::LessonStep& step = lesson_->steps[std::size_t(step_)];
    if (step.apply != "reparametrize_qk" || !(analysis->config == step.session.config) || !analysis->model_name.empty()) {
        applied_.reset();
        applied_from_.reset();
        return;
    }
    if (!applied_from_ || !(applied_from_->config == analysis->config)) {  // the equivalence's copy reuses it
        applied_ = std::make_shared<const Analysis>(lessons::reparametrizedAnalysis(*analysis));
        applied_from_ = analysis;
    }
    window_->headGrid()->setAnalysis(applied_);
    window_->projectionsView()->setAnalysis(applied_);
    window_->circuitView()->setAnalysis(applied_);
}

void LessonDock::updateButtons() {
    previous_->setEnabled(lesson_ && step_ > 0);
    next_->setEnabled(lesson_ && step_ + 1 < stepCount());
    reset_->setEnabled(lesson_.has_value());
    counter_->setText(!lesson_ ? QString()
                      : strip_ ? tr("%1 of %2").arg(step_ + 1).arg(stepCount())
                               : tr("Step %1 of %2").arg(step_ + 1).arg(stepCount()));
}

}  // namespace headscope::ui

namespace headscope::ui {

void LessonDock::setStrip(bool strip) {
    strip_ = strip;
    // No title bar and no heading over a strip (the step's title heads its text): the view keeps the height.
    heading_->setVisible(!strip);
    setDockTitleBarHidden(this, strip);
    // The strip: the text on the left, as high as it needs (fitStrip), the buttons in a narrow
    // column on its right: arrows for Previous and Next (their tool tips name them) around the
    // counter ("2 of 4"), Reset under them. The step's title is bold, a little larger, with no room around it.
    layout_->setDirection(strip ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    button_column_->setDirection(QBoxLayout::TopToBottom);
    layout_->setContentsMargins(strip ? QMargins(4, 0, 4, 2) : QMargins(9, 9, 9, 9));
    text_->document()->setDefaultStyleSheet(
        strip ? QStringLiteral("h2 { font-size: medium; margin-top: 0px; margin-bottom: 1px; } p { margin-top: 0px; margin-bottom: 1px; }")
              : QString());
    // A strip spends no height on a frame or a wide document margin: at 1024 x 768, 2x, those
    // 10 px were the difference between a whole step text and a view of half the window.
    text_->setFrameShape(strip ? QFrame::NoFrame : QFrame::StyledPanel);
    text_->document()->setDocumentMargin(strip ? 1 : 4);
    text_->setHtml(html_);
    previous_->setText(strip ? tr("\u25c0") : tr("\u25c0 Previous"));
    next_->setText(strip ? tr("\u25b6") : tr("Next \u25b6"));
    reset_->setText(strip ? tr("Reset") : tr("Reset this step"));
    if (!strip) arrangeButtons(false);  // a column: the buttons in a row under the text
    sizeStripParts();
    updateButtons();
    if (!strip) scrollOnlyWhereCut();  // a column scrolls as it needs
    fitStrip();
}

void LessonDock::sizeStripParts() {
    // A line of text at least; the arrows as narrow as their glyph allows (a style gives text
    // buttons a wide minimum).
    text_->setMinimumHeight(strip_ ? fontMetrics().lineSpacing() + 8 : 0);
    const int arrow = fontMetrics().horizontalAdvance(QStringLiteral("\u25c0")) + 2 * fontMetrics().height();
    for (QPushButton* b : {previous_, next_}) b->setMaximumWidth(strip_ ? arrow : QWIDGETSIZE_MAX);
}

bool LessonDock::eventFilter(QObject* watched, QEvent* event) {
    if (watched == window_ && event->type() == QEvent::Resize && strip_) QTimer::singleShot(0, this, &LessonDock::fitStrip);
    return QDockWidget::eventFilter(watched, event);
}

void LessonDock::changeEvent(QEvent* event) {
    QDockWidget::changeEvent(event);
    if (event->type() != QEvent::FontChange || !strip_) return;
    sizeStripParts();  // View > Larger, presentation mode: the text wraps anew
    QTimer::singleShot(0, this, &LessonDock::fitStrip);
}

int LessonDock::textHeightAt(int width) const {
    // The document laid out at that width without a scroll bar, plus the frame.
    std::unique_ptr<QTextDocument> copy(text_->document()->clone());
    copy->setTextWidth(std::max(1, width - 2 * text_->frameWidth()));
    return int(std::ceil(copy->size().height())) + 2 * text_->frameWidth();
}

int LessonDock::stripHeightForText() const {
    // The whole text at the text box's width, plus what the dock holds around the text box.
    return height() - text_->height() + textHeightAt(text_->width());
}

bool LessonDock::arrangeButtons(bool narrow) {
    if (narrow == narrow_buttons_) return false;
    narrow_buttons_ = narrow;
    buttons_->removeWidget(counter_);
    button_column_->removeWidget(counter_);
    if (narrow)
        button_column_->insertWidget(1, counter_);
    else
        buttons_->insertWidget(1, counter_, 1);
    button_column_->invalidate();
    return true;
}

bool LessonDock::chooseButtonColumn() {
    // Beside a long text the buttons stack narrow, so that the text is wider and a line or two
    // lower (at 1024 x 768, 2x, lesson 5 step 4's seven lines left the Heads tab 5 px short of
    // the large head with every word); beside a short one they stay in a row, lower than the
    // stack. Each arrangement measured at the width it leaves the text.
    const int both = text_->width() + button_column_->geometry().width();
    const bool was = narrow_buttons_;
    int strip_h[2] = {};
    for (const bool narrow : {false, true}) {
        arrangeButtons(narrow);
        const QSize column = button_column_->sizeHint();
        strip_h[narrow] = std::max(textHeightAt(both - column.width()), column.height());
    }
    arrangeButtons(was);
    return arrangeButtons(strip_h[true] < strip_h[false]);
}

void LessonDock::fitStrip() {
    if (!strip_ || fitting_ || isFloating() || !isVisible()) return;
    // A new arrangement of the buttons: the text's width follows once laid out, then its height.
    if (chooseButtonColumn()) return void(QTimer::singleShot(0, this, &LessonDock::fitStrip));
    const int wanted = std::min(stripHeightForText(), int(window_->height() * kMaxStripShare));
    if (wanted == height()) return scrollOnlyWhereCut();
    fitting_ = true;
    window_->resizeDocks({this}, {wanted}, Qt::Vertical);
    // The main window counts its separators and the dock's frame in the size it is asked for, and
    // a strip beside no central widget (the spectra alone above it) came out 9 px short of its
    // text at 2x: asked once more for the shortfall, once the layout settled.
    QTimer::singleShot(0, this, [this, wanted]() {
        const int short_by = wanted - height();
        if (!strip_ || fitting_ || short_by <= 0) return scrollOnlyWhereCut();
        fitting_ = true;
        window_->resizeDocks({this}, {wanted + short_by}, Qt::Vertical);
        fitting_ = false;
        QTimer::singleShot(0, this, &LessonDock::scrollOnlyWhereCut);
    });
    fitting_ = false;
}

void LessonDock::scrollOnlyWhereCut() {
    // A scroll bar once shown narrows the text, which then wraps taller and keeps the bar even
    // where the strip holds the whole text without it (F5 at 1280 x 720: 154 px of text in 129,
    // 129 without the bar): a strip that holds its text shows none.
    const bool whole = !strip_ || height() + 1 >= stripHeightForText();
    text_->setVerticalScrollBarPolicy(strip_ && whole ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
}

void LessonDock::resizeEvent(QResizeEvent* event) {
    QDockWidget::resizeEvent(event);
    // A new width wraps the text anew; the dock's height follows once the layout settled.
    if (strip_ && event->size().width() != event->oldSize().width()) QTimer::singleShot(0, this, &LessonDock::fitStrip);
}

}  // namespace headscope::ui
