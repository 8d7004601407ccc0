#pragma once
// The Training tab (issue 23): train a small transformer on repeated strings and watch the
// loss drop in a step while a previous-token head and an induction head form. Settings on the
// left (a change starts a new run), Start / Pause / Step / Reset with the step and loss above,
// and the curves, head scores and every head's attention on the probe. In a small room (issue
// 21: 512 x 384 logical at 2x on a 1024 x 768 projector) the settings and then the plots become
// pages of a bar under the buttons, so the curves get the room and the tab never scrolls. Training runs on TrainingWorker's thread; the tab only
// draws the frames it posts. "Save model..." writes a GPT-2 folder; "Open in HeadScope" saves one
// to a temporary folder and asks the main window to open it (openModelRequested).

#include <QTemporaryDir>
#include <QMargins>
#include <QWidget>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "TrainingFrame.h"
#include "TrainingWorker.h"

class QPushButton;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QTabBar;
class QHBoxLayout;
class QVBoxLayout;
class QThread;

namespace headscope::ui {

class FittedLabel;
class HeadScoresView;
class ProbeAttentionView;
class TrainingCurvesView;
class TrainingSettings;

class TrainingTab : public QWidget {
    Q_OBJECT
public:
    explicit TrainingTab(QWidget* parent = nullptr);
    ~TrainingTab() override;

    // The settings the controls hold (may not validate).
    train::TrainConfig settings() const;
    // Puts c in the controls and starts a new run with it (a lesson step, lessons/LessonTraining.h).
    void setSettings(const train::TrainConfig& c);
    // The last frame drawn (nullptr before the first).
    const TrainingFramePtr& frame() const { return frame_; }

    TrainingCurvesView* curves() const { return curves_; }
    HeadScoresView* scores() const { return scores_; }
    ProbeAttentionView* attention() const { return attention_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stepButton() const { return step_; }
    QPushButton* resetButton() const { return reset_; }
    QSpinBox* seedBox() const;

    // How the tab uses its room: everything side by side; the plots beside each other with the
    // settings a page of their own; or one page each (curves, head scores, attention, settings).
    enum class Room { Wide, Plots, Pages };
    Room room() const { return room_; }
    // The pages' bar (hidden in the wide room) and the one-line step / loss readout.
    QTabBar* pages() const { return pages_; }
    // What the pages show (the pages' tabs' data); a lesson step names one (showPart).
    enum Page { NoPage = -1, CurvesPage, ScoresPage, AttentionPage, SettingsPage, PlotsPage };
    // The part a lesson step names ("curves", "scores", "attention", "settings"; lessons::focusNames)
    // shown where the room shows one page at a time, and kept there as the room changes; "" for
    // the first page. False for a name not known.
    bool showPart(const QString& part);
    // The page shown now (NoPage in the wide room, which shows everything).
    Page shownPage() const;
    // The buttons, the readout and the pages' bar on one line (Pages room too low for two).
    bool isCompact() const { return compact_; }
    // The least height of a plot in that compact room (logical px); below it the tab scrolls.
    static constexpr int kCompactPlotHeight = 100;
    FittedLabel* readout() const { return status_; }

public slots:
    void startTraining();
    // Starts, pausing at the first step where stop holds (TrainingWorker::start).
    void trainUntil(TrainingWorker::StopWhen stop);
    void pauseTraining();
    void stepTraining();
    void resetTraining();
    void saveModelDialog();
    void openInHeadScope();

signals:
    void openModelRequested(const QString& directory);
    void frameShown();  // after a frame is drawn (tests wait on it)

private:
    void showFrame(TrainingFramePtr frame);
    void onSaved(const QString& directory, const QString& error);
    void buildButtons();  // Start, Pause, Step, Reset and the readout
    void fitRoom();
    void setCompact(bool compact);
    void showChosen();
    void showPage(int index);

protected:
    bool event(QEvent* event) override;  // a new parent: its resizes are the room's
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:

    QThread* thread_;
    TrainingWorker* worker_;
    TrainingFramePtr frame_;
    TrainingCurvesView* curves_;
    HeadScoresView* scores_;
    ProbeAttentionView* attention_;
    QPushButton *start_, *pause_, *step_, *reset_;
    FittedLabel* status_;
    TrainingSettings* side_ = nullptr;  // the settings, Save and Open
    QScrollArea* settings_area_ = nullptr;
    QSplitter *plots_ = nullptr, *right_ = nullptr;
    QTabBar* pages_ = nullptr;
    Room room_ = Room::Wide;
    bool arranged_ = false;  // fitRoom has laid the tab out once
    Page chosen_ = NoPage;  // the page picked (a click, a lesson step): it stays while the room has it
    bool compact_ = false;
    QHBoxLayout* bar_ = nullptr;   // the buttons and the readout (and the pages' bar, compact)
    QVBoxLayout* column_ = nullptr;
    QMargins margins_;
    int spacing_ = 0;
    std::array<QSize, 3> least_;  // the curves', the head scores' and the attention's least sizes
    std::unique_ptr<QTemporaryDir> open_dir_;
    bool open_after_save_ = false;
};

}  // namespace headscope::ui
