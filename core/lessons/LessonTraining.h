#pragma once
// What a lesson step does beyond the one-layer views (issue 23, lesson 7): drive a training run
// of core/train, wait until it reaches a condition, open the trained model and knock heads out.
// In a lesson file, all optional, on a step:
//
//   "training": {"settings": {"layers": 2, "d_model": 32, "heads": 2, "seed": 1,
//                             "learning_rate": 0.003, "warmup": 0, "min_repeat": 6, "max_repeat": 20},
//                              a run with these (TrainConfig's defaults for the keys not given);
//                              the current run is kept when it already has them
//                "run": "start" | "pause" | "reset"   (reset: a new run at step 0 even with the same settings)
//                "until": {"steps": 150, "accuracy": 0.9,
//                          "previous_token": {"layer": 0, "head": 0, "score": 0.25},
//                          "induction": {"layer": 1, "head": 1, "score": 0.5}},
//                              every condition given must hold on the latest evaluation; training
//                              pauses there (the class watches it happen)
//                "budget": 1500}  steps at most: the run pauses there even if the condition is
//                                 not met (and says so), and a headless export trains this far at most
//   "open_model": true             save the run as a GPT-2 folder and open it in the other tabs
//   "ablate": "1.0,1.1", "ablate_mode": "zero" | "mean"
//                                  knock these heads of the open model out (the model the run
//                                  became, opened first when none is)
//
// Thresholds are the lesson's own words ("until accuracy passes 90 %"), never results: what the
// run reached is reported from the run itself (describeReached).

#include <optional>
#include <string>
#include <vector>

#include "model/Ablation.h"
#include "train/Trainer.h"

namespace headscope::lessons {

struct HeadScoreCondition {
    int layer = 0, head = 0;
    double score = 0;  // at least
};

struct TrainingUntil {
    std::optional<long long> steps;                   // at least this many steps
    std::optional<double> accuracy;                   // accuracy on the repeated half, 0..1, at least
    std::optional<HeadScoreCondition> previous_token;  // a head's previous-token score at least
    std::optional<HeadScoreCondition> induction;       // a head's prefix-matching score at least
    bool empty() const { return !steps && !accuracy && !previous_token && !induction; }
};

struct TrainingAction {
    std::optional<train::TrainConfig> settings;
    enum class Run { Keep, Start, Pause, Reset } run = Run::Keep;
    TrainingUntil until;
    long long budget = 0;  // 0: none
};

struct StepActions {
    std::optional<TrainingAction> training;
    bool open_model = false;
    std::optional<model::Ablation> ablate;
    bool any() const { return training || open_model || ablate; }
};

// Parses a step's "training", "open_model", "ablate" and "ablate_mode" (keys absent: nothing)
// from the step object's JSON text. Throws io::IoError with one sentence starting with where
// ("lesson-7.json, step 2: ...").
StepActions parseStepActions(const std::string& step_json, const std::string& where);

// True when every condition of until holds after `steps` steps with `latest` the latest
// evaluation of a run of heads_per_layer heads a layer.
bool conditionHolds(const TrainingUntil& until, long long steps, const train::Evaluation& latest, int heads_per_layer);

// "accuracy on the repeated half at least 90 %, head 1.1's induction score at least 0.5".
std::string describeCondition(const TrainingUntil& until);
// What the run shows at evaluation e, for the conditions until names: "step 300: loss 1.38
// (repeated half 0.60), accuracy on the repeated half 90.7 %" (always the step and loss; the
// repeated half's figures unless only head scores are named), "..., head 1.1's induction score 0.87".
std::string describeEvaluation(const TrainingUntil& until, const train::Evaluation& e, int heads_per_layer);

// "head 1.1", "heads 1.0, 1.1".
std::string headList(const std::vector<model::HeadRef>& heads);

// The same settings (every field a lesson can set, and the rest).
bool sameSettings(const train::TrainConfig& a, const train::TrainConfig& b);

// Trains headless until the condition holds at an evaluation or `budget` steps are done
// (budget 0: the action's own, else 5000). Returns whether the condition held.
bool trainUntil(train::Trainer& trainer, const TrainingAction& action);

}  // namespace headscope::lessons
