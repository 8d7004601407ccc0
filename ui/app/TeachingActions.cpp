#include "TeachingActions.h"

#include "Session.h"
#include "TrainingTab.h"

namespace headscope::ui {


TeachingActions::TeachingActions(TrainingTab* training, Session* session, QObject* parent)
    : QObject(parent), training_(training), session_(session) {
    connect(training_, &TrainingTab::frameShown, this, &TeachingActions::onFrame);
    connect(session_, &Session::sourceChanged, this, &TeachingActions::onSourceChanged);
    connect(session_, &Session::failed, this, [this](const QString& message) {
        if (stage_ != Stage::Opening) return;
        setStatus(tr("The trained model did not open: %1").arg(message.toHtmlEscaped()));
        stage_ = Stage::Done;
    });
    connect(session_, &Session::changed, this, [this]() {
        // The heads are off once an analysis of the model with them off is on screen.
        if (stage_ != Stage::Ablating || !actions_.ablate) return;
        const auto trace = session_->trace();
        if (trace && trace->options.ablation == *actions_.ablate && session_->effects()) finish();
    });
}

void TeachingActions::run(const lessons::StepActions& actions) {
    actions_ = actions;
    reached_ = false;
    setStatus({});
    if (!actions_.training) {
        afterTraining();
        return;
    }
    const lessons::TrainingAction& t = *actions_.training;
    if (t.run == lessons::TrainingAction::Run::Reset || (t.settings && !lessons::sameSettings(*t.settings, training_->settings()))) {
        training_->setSettings(t.settings.value_or(training_->settings()));
        awaiting_reset_ = true;  // frames of the old run may still be on their way
    }
    if (t.run == lessons::TrainingAction::Run::Pause) training_->pauseTraining();
    if (t.until.empty()) {
        if (t.run == lessons::TrainingAction::Run::Start) training_->startTraining();
        afterTraining();
        return;
    }
    stage_ = Stage::Training;
    setStatus(tr("Training until %1\u2026").arg(QString::fromStdString(lessons::describeCondition(t.until))));
    // Already there (a step gone back to, or the condition of an earlier step): no more training.
    if (const auto& f = training_->frame(); !awaiting_reset_ && f && lessons::sameSettings(f->config, training_->settings()) &&
                                            lessons::conditionHolds(t.until, f->steps, f->evaluations.back(), f->config.heads)) {
        onFrame();
        return;
    }
    // The run stops at the step the condition holds (or the budget ends), not a chunk later: one
    // step count on the readout, in "Reached" and on the curves (issue 36 item 5).
    training_->trainUntil([until = t.until, budget = t.budget](long long steps, const train::Evaluation* evaluated, int heads) {
        return (budget > 0 && steps >= budget) || (evaluated && lessons::conditionHolds(until, steps, *evaluated, heads));
    });
}

void TeachingActions::onFrame() {
    const TrainingFramePtr& f = training_->frame();
    if (awaiting_reset_ && f && f->steps == 0 && lessons::sameSettings(f->config, training_->settings())) awaiting_reset_ = false;
    if (stage_ != Stage::Training || awaiting_reset_) return;
    if (!f || f->evaluations.empty() || !lessons::sameSettings(f->config, training_->settings())) return;
    const lessons::TrainingAction& t = *actions_.training;
    const train::Evaluation& e = f->evaluations.back();
    const QString now = QString::fromStdString(lessons::describeEvaluation(t.until, e, f->config.heads));
    if (lessons::conditionHolds(t.until, f->steps, e, f->config.heads)) {
        reached_ = true;
        if (f->running) training_->pauseTraining();  // the class looks at the state the text is about
        setStatus(tr("<b>Reached</b>: %1. The run at %2.").arg(QString::fromStdString(lessons::describeCondition(t.until)), now));
        afterTraining();
        return;
    }
    const long long budget = t.budget > 0 ? t.budget : 0;
    if (budget > 0 && f->steps >= budget) {
        if (f->running) training_->pauseTraining();
        setStatus(tr("<b>Not reached</b> within %1 steps: %2. The run at %3. Press Start in the Training tab to go on, or "
                     "Reset this step.")
                      .arg(budget)
                      .arg(QString::fromStdString(lessons::describeCondition(t.until)), now));
        stage_ = Stage::Done;
        return;
    }
    // The run's progress says no more than "Reached" will (the same figures, no condition): the dock's text
    // fits a projector at its final length and never outgrows it while the model trains.
    setStatus(tr("Training\u2026 the run at %1.").arg(now));
}

void TeachingActions::afterTraining() {
    if (actions_.open_model || (actions_.ablate && !session_->canAblate())) openModel();
    else if (actions_.ablate) ablate();
    else finish();
}

void TeachingActions::openModel() {
    if (!training_->frame()) {
        setStatus(tr("There is no trained model to open: start the training first."));
        stage_ = Stage::Done;
        return;
    }
    stage_ = Stage::Opening;
    training_->openInHeadScope();  // saves the run as a GPT-2 folder; the window opens it
}

void TeachingActions::onSourceChanged() {
    if (stage_ != Stage::Opening || !session_->source().model) return;
    if (actions_.ablate) ablate();
    else finish();
}

void TeachingActions::ablate() {
    stage_ = Stage::Ablating;
    const auto trace = session_->trace();
    session_->setAblation(*actions_.ablate);
    if (trace && trace->options.ablation == *actions_.ablate && session_->effects()) finish();  // already off
}

void TeachingActions::finish() {
    if (stage_ == Stage::Ablating && session_->effects()) {
        const model::AblationEffects& e = *session_->effects();
        if (e.has_logprobs && !e.encoder)  // an encoder's are its masked guesses, not a loss on the text
            setStatus(tr("<b>Knocked out</b> %1: the loss on the text goes from %2 to %3 (see the Ablation tab).")
                          .arg(QString::fromStdString(lessons::headList(e.ablation.heads)))
                          .arg(e.before.loss, 0, 'f', 2)
                          .arg(e.after.loss, 0, 'f', 2));
    }
    stage_ = Stage::Done;
    emit finished();
}

void TeachingActions::setStatus(const QString& status) {
    if (status == status_) return;
    status_ = status;
    emit statusChanged(status_);
}

}  // namespace headscope::ui
