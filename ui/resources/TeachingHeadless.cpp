#include "TeachingHeadless.h"

#include <QDir>
#include <stdexcept>

#include "io/Checkpoint.h"
#include "model/Forward.h"
#include "train/SaveGpt2.h"

namespace headscope::ui {

HeadlessLessonRun::HeadlessLessonRun() = default;
HeadlessLessonRun::~HeadlessLessonRun() = default;

QString HeadlessLessonRun::apply(const lessons::LessonStep& step, const QString& scratch_dir) {
    const lessons::StepActions& a = step.actions;
    QString status;
    if (a.training) {
        const lessons::TrainingAction& t = *a.training;
        const train::TrainConfig settings = t.settings.value_or(trainer_ ? trainer_->config() : train::TrainConfig{});
        if (!trainer_ || t.run == lessons::TrainingAction::Run::Reset || !lessons::sameSettings(settings, trainer_->config()))
            trainer_ = std::make_unique<train::Trainer>(settings);
        if (!t.until.empty()) {
            reached_ = lessons::trainUntil(*trainer_, t);
            const std::string condition = lessons::describeCondition(t.until);
            const std::string now = lessons::describeEvaluation(t.until, trainer_->evaluations().back(), settings.heads);
            status = reached_ ? QStringLiteral("<b>Reached</b>: %1. The run at %2.").arg(QString::fromStdString(condition), QString::fromStdString(now))
                              : QStringLiteral("<b>Not reached</b> within %1 steps: %2. The run at %3.")
                                    .arg(t.budget > 0 ? t.budget : 5000)
                                    .arg(QString::fromStdString(condition), QString::fromStdString(now));
        }
        run_ = {};
        run_.evaluations = trainer_->evaluations();
        for (const train::AttentionSnapshot& s : trainer_->snapshots())
            run_.snapshots.push_back(std::make_shared<const train::AttentionSnapshot>(s));
        run_.layers = settings.layers, run_.heads = settings.heads;
    }
    const bool open = a.open_model || (a.ablate && !model_);
    if (open) {
        if (!trainer_) throw std::invalid_argument("there is no trained model to open: no earlier step trains one");
        const QString dir = QDir(scratch_dir).filePath(QStringLiteral("model-%1").arg(++saved_));
        if (!QDir().mkpath(dir)) throw std::invalid_argument("cannot create " + dir.toStdString());
        train::saveGpt2Folder(trainer_->config(), trainer_->layout(), trainer_->parameters(), dir.toStdString());
        model_ = io::loadCheckpoint(dir.toStdString());
    }
    if (model_ && (open || a.ablate)) {
        runModel(step.session.config.text, a.ablate.value_or(model::Ablation{}));
        if (a.ablate && effects_->has_logprobs && !effects_->encoder)
            status = QStringLiteral("<b>Knocked out</b> %1: the loss on the text goes from %2 to %3.")
                         .arg(QString::fromStdString(lessons::headList(a.ablate->heads)))
                         .arg(effects_->before.loss, 0, 'f', 2)
                         .arg(effects_->after.loss, 0, 'f', 2);
    }
    return status;
}

void HeadlessLessonRun::runModel(const std::string& text, const model::Ablation& ablation) {
    const std::vector<int> ids = model_->tokenizer->encode(text);
    if (ids.empty()) throw std::invalid_argument("the step's text has no tokens for the trained model");
    model::ForwardOptions options;
    options.all_logits = true;
    auto intact = std::make_shared<const model::Trace>(model::runModel(*model_, ids, options));
    options.ablation = ablation;
    trace_ = ablation.empty() ? intact : std::make_shared<const model::Trace>(model::runModel(*model_, ids, options));
    effects_ = std::make_shared<const model::AblationEffects>(model::ablationEffects(*model_, *intact, *trace_));
}

ViewInputs HeadlessLessonRun::inputs(const Analysis* analysis, int head, const ViewOptions& options) const {
    ViewInputs in;
    in.analysis = analysis;
    in.head = head;
    in.options = options;
    in.trace = trace_;
    in.effects = effects_;
    in.training = run_.evaluations.empty() ? nullptr : &run_;
    return in;
}

}  // namespace headscope::ui
