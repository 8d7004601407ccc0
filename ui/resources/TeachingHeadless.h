#pragma once
// A lesson's actions without a window (headscope-cli lesson, tests): what TeachingActions does
// with the Training tab and the Session, done in the calling thread, so that a slide of a step
// that trains, opens the trained model or knocks heads out shows the state its text talks about.
// Training is deterministic for a seed, so the slides of lesson 7 show the run a class sees with
// the same settings; each wait stops at the step's budget (and the status says when it did).

#include <QString>
#include <memory>

#include "ViewRegistry.h"
#include "lessons/Lesson.h"

namespace headscope::ui {

class HeadlessLessonRun {
public:
    HeadlessLessonRun();
    ~HeadlessLessonRun();

    // Does step's actions (training until its condition, saving and opening the model in
    // scratch_dir, knocking heads out) after the earlier steps'. Returns the status line the
    // lesson dock would show (rich text, "" for a step without actions). std::exception on failure.
    QString apply(const lessons::LessonStep& step, const QString& scratch_dir);

    // What the step's view is drawn from: analysis for the one-layer views, the run, the trace and
    // the effects for the others.
    ViewInputs inputs(const Analysis* analysis, int head, const ViewOptions& options) const;

    const train::Trainer* trainer() const { return trainer_.get(); }
    const model::AblationEffects* effects() const { return effects_.get(); }
    bool reached() const { return reached_; }  // the last training condition held

private:
    void runModel(const std::string& text, const model::Ablation& ablation);

    std::unique_ptr<train::Trainer> trainer_;
    TrainingRun run_;
    model::ModelPtr model_;
    std::shared_ptr<const model::Trace> trace_;
    std::shared_ptr<const model::AblationEffects> effects_;
    bool reached_ = false;
    int saved_ = 0;
};

}  // namespace headscope::ui
