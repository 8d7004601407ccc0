#pragma once
// What a lesson step does beyond showing a view (lessons/LessonTraining.h, lesson 7): it sets
// the Training tab's settings (a new run only when they differ), starts or pauses it, and watches
// the frames the tab draws until the step's condition holds, then pauses the run there so the
// class sees the state the text talks about; then it opens the model the run became and knocks
// the step's heads out. Each stage waits for the one before (the training, then the model's
// loading), so going to a later step directly does the earlier stages it needs. status() says in
// one line what is awaited or what was reached, from the run itself.

#include <QObject>
#include <QString>
#include <optional>

#include "lessons/LessonTraining.h"

namespace headscope::ui {

class Session;
class TrainingTab;

class TeachingActions : public QObject {
    Q_OBJECT

public:
    TeachingActions(TrainingTab* training, Session* session, QObject* parent = nullptr);

    // Starts the step's actions (forgetting a previous step's that are not done).
    void run(const lessons::StepActions& actions);
    bool done() const { return stage_ == Stage::Done; }
    // Rich text: "Training until ... (now: step 200, ...)", "Reached at step 300: ...", "" when idle.
    QString status() const { return status_; }
    // True when the step's condition held (false while waiting, or when the budget ran out first).
    bool reached() const { return reached_; }

signals:
    void statusChanged(const QString& status);
    void finished();  // every action of the step is done (the heads knocked out, when it has them)

private:
    enum class Stage { Done, Training, Opening, Ablating };
    void onFrame();
    void onSourceChanged();
    void afterTraining();
    void openModel();
    void ablate();
    void finish();
    void setStatus(const QString& status);

    TrainingTab* training_;
    Session* session_;
    lessons::StepActions actions_;
    Stage stage_ = Stage::Done;
    bool reached_ = false;
    bool awaiting_reset_ = false;  // a new run was asked for; its first frame (step 0) has not come
    QString status_;
};

}  // namespace headscope::ui
