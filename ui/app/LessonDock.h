#pragma once
// The lesson player: one lesson's steps, Previous / Next (Page Up / Page Down), "Step 2 of 6",
// and "Reset this step". Going to a step applies its configuration and view through the main
// window (MainWindow::applyLessonStep); the step's text is a template whose numbers are filled
// from the session's latest analysis each time one arrives, never typed in. A step that
// applies something to the live weights (lesson 1: W_Q M, W_K M^-T) hands the transformed
// analysis to the views that draw weights and attention, after the session's own. A step that
// drives the Training tab, opens the model it trained or knocks heads out does so through
// TeachingActions, whose status (what is awaited, what was reached) follows the step's text.

#include <memory>
#include <optional>

#include <QDockWidget>

#include "Analysis.h"
#include "lessons/Lesson.h"

class QAction;
class QBoxLayout;
class QVBoxLayout;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace headscope::ui {

class MainWindow;
class TeachingActions;

class LessonDock : public QDockWidget {
    Q_OBJECT

public:
    explicit LessonDock(MainWindow* window);

    void setLesson(const lessons::Lesson& lesson);  // shows and applies its first step
    const std::optional<lessons::Lesson>& lesson() const { return lesson_; }
    int step() const { return step_; }  // 0-based
    int stepCount() const { return lesson_ ? static_cast<int>(lesson_->steps.size()) : 0; }

    // The text as shown now (plain text of the rich text, numbers filled in), and the counter
    // ("Step 2 of 6"; in a strip "2 of 6").
    QString shownText() const;
    QString counterText() const;
    QPushButton* nextButton() const { return next_; }
    QPushButton* previousButton() const { return previous_; }
    QAction* nextAction() const { return next_action_; }        // Page Down, window-wide
    QAction* previousAction() const { return previous_action_; }  // Page Up
    // What the views show while the step applies something to the live weights ("apply":
    // "reparametrize_qk": W_Q M, W_K M^-T), else nullptr.
    std::shared_ptr<const Analysis> appliedAnalysis() const { return applied_; }
    // What the step does to the Training tab, the opened model and its heads (lesson 7).
    TeachingActions* actions() const { return actions_; }
    // A strip below the view (text left, buttons right) instead of a column beside it.
    void setStrip(bool strip);
    bool isStrip() const { return strip_; }
    // A strip grows to its whole text (title, body, "Look at"), up to this share of the
    // window's height; the view keeps the rest (issue 21: read without scrolling at 2x).
    static constexpr double kMaxStripShare = 0.42;
    // The strip's height that shows the step's whole text at the strip's present width.
    int stripHeightForText() const;
    QTextBrowser* textBrowser() const { return text_; }

public slots:
    void fitStrip();  // a strip: its height to its text (kMaxStripShare of the window at most)
    void goToStep(int step);
    void next();
    void previous();
    void resetStep();

signals:
    void stepShown(int step);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;  // the window's resize: the strip's share

private:
    void scrollOnlyWhereCut();  // the text's scroll bar only where the strip cuts its text
    void fill(std::shared_ptr<const Analysis> analysis);
    void applyToViews(const std::shared_ptr<const Analysis>& analysis);
    void updateButtons();
    void sizeStripParts();  // the arrows' width and the text's least height, for the font
    // A strip's buttons: in a row (Previous, counter, Next over Reset) or narrow (the arrows over
    // the counter over Reset), whichever leaves the strip lower; returns whether it changed.
    bool arrangeButtons(bool narrow);
    bool chooseButtonColumn();
    int textHeightAt(int width) const;  // the text box's height for its whole text at that width

    MainWindow* window_;
    std::optional<lessons::Lesson> lesson_;
    int step_ = 0;
    QLabel* heading_ = nullptr;
    QLabel* counter_ = nullptr;
    QTextBrowser* text_ = nullptr;
    QPushButton* previous_ = nullptr;
    QPushButton* next_ = nullptr;
    QPushButton* reset_ = nullptr;
    QBoxLayout* layout_ = nullptr;   // the text over the buttons
    QBoxLayout* buttons_ = nullptr;  // Previous, Step k of n, Next (narrow: the arrows alone)
    QVBoxLayout* text_column_ = nullptr;
    QBoxLayout* button_column_ = nullptr;  // the buttons over Reset, or (a strip) beside it
    bool strip_ = false;
    bool narrow_buttons_ = false;  // arrangeButtons()
    bool fitting_ = false;  // fitStrip's resize must not start another
    QAction* previous_action_ = nullptr;
    QAction* next_action_ = nullptr;
    QString html_;  // the step's text as last filled in
    std::shared_ptr<const Analysis> applied_;
    std::shared_ptr<const Analysis> applied_from_;  // the session's analysis applied_ was made from
    TeachingActions* actions_ = nullptr;
};

}  // namespace headscope::ui
