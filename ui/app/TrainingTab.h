#pragma once
// The Training tab (issue 23): train a small transformer on repeated strings and watch the
// loss drop in a step while a previous-token head and an induction head form. Settings on the
// left (a change starts a new run), Start / Pause / Step / Reset, and the curves, head scores and
// every head's attention on the probe. Training runs on TrainingWorker's thread; the tab only
// draws the frames it posts. "Save model..." writes a GPT-2 folder; "Open in HeadScope" saves one
// to a temporary folder and asks the main window to open it (openModelRequested).

#include <QTemporaryDir>
#include <QWidget>
#include <memory>

#include "TrainingFrame.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QThread;

namespace headscope::ui {

class HeadScoresView;
class ProbeAttentionView;
class TrainingCurvesView;
class TrainingWorker;

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
    QSpinBox* seedBox() const { return seed_; }

public slots:
    void startTraining();
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
    void settingsChanged();
    void onSaved(const QString& directory, const QString& error);
    QWidget* buildSettings();

    QThread* thread_;
    TrainingWorker* worker_;
    TrainingFramePtr frame_;
    TrainingCurvesView* curves_;
    HeadScoresView* scores_;
    ProbeAttentionView* attention_;
    QSpinBox *layers_, *d_model_, *heads_, *vocab_, *context_, *min_repeat_, *max_repeat_, *batch_, *seed_, *warmup_;
    QDoubleSpinBox* learning_rate_;
    QCheckBox *mlp_, *fixed_repeat_, *random_start_, *two_copies_;
    QPushButton *start_, *pause_, *step_, *reset_, *save_, *open_;
    QLabel *problem_, *status_;
    std::unique_ptr<QTemporaryDir> open_dir_;
    bool open_after_save_ = false;
};

}  // namespace headscope::ui
