#include "lessons/LessonTraining.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/IoError.h"
#include "io/Quote.h"

namespace headscope::lessons {

namespace {

using nlohmann::json;
using io::IoError;

void onlyKeys(const json& j, std::initializer_list<const char*> known, const std::string& where) {
    if (!j.is_object()) throw IoError(where + " must be a JSON object");
    for (const auto& item : j.items())
        if (std::none_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; }))
            throw IoError(where + ": unknown key " + io::quote(item.key()));
}

long long wholeNumber(const json& j, const char* key, long long low, long long high, const std::string& where) {
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
        throw IoError(where + ": \"" + key + "\" must be a whole number from " + std::to_string(low) + " to " +
                      std::to_string(high));
    return v.get<long long>();
}

double fraction(const json& j, const char* key, const std::string& where) {
    const json& v = j.at(key);
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1))
        throw IoError(where + ": \"" + key + "\" must be a number from 0 to 1");
    return v.get<double>();
}

train::TrainConfig parseSettings(const json& j, const std::string& where) {
    onlyKeys(j, {"layers", "d_model", "heads", "vocab", "context", "min_repeat", "max_repeat", "learning_rate", "batch", "seed",
                 "warmup"},
             where);
    train::TrainConfig c;
    using T = train::TrainConfig;
    if (j.contains("layers")) c.layers = int(wholeNumber(j, "layers", 1, T::kMaxLayers, where));
    if (j.contains("d_model")) c.d_model = int(wholeNumber(j, "d_model", 2, T::kMaxDModel, where));
    if (j.contains("heads")) c.heads = int(wholeNumber(j, "heads", 1, T::kMaxDModel, where));
    if (j.contains("vocab")) c.vocab = int(wholeNumber(j, "vocab", 4, T::kMaxVocab, where));
    if (j.contains("context")) c.context = int(wholeNumber(j, "context", 4, T::kMaxContext, where));
    if (j.contains("min_repeat")) c.min_repeat = int(wholeNumber(j, "min_repeat", 2, T::kMaxContext, where));
    if (j.contains("max_repeat")) c.max_repeat = int(wholeNumber(j, "max_repeat", 2, T::kMaxContext, where));
    if (j.contains("batch")) c.batch = int(wholeNumber(j, "batch", 1, 512, where));
    if (j.contains("warmup")) c.warmup_steps = int(wholeNumber(j, "warmup", 0, 100'000, where));
    if (j.contains("seed")) c.seed = std::uint64_t(wholeNumber(j, "seed", 0, 1'000'000, where));
    if (j.contains("learning_rate")) {
        if (!j["learning_rate"].is_number() || !(j["learning_rate"].get<double>() > 0))
            throw IoError(where + ": \"learning_rate\" must be a positive number");
        c.learning_rate = j["learning_rate"].get<double>();
    }
    if (const std::string problem = c.problem(); !problem.empty()) throw IoError(where + ": " + problem);
    return c;
}

HeadScoreCondition parseHeadScore(const json& j, const std::string& where) {
    onlyKeys(j, {"layer", "head", "score"}, where);
    for (const char* key : {"layer", "head", "score"})
        if (!j.contains(key)) throw IoError(where + ": \"" + key + "\" is missing");
    return {int(wholeNumber(j, "layer", 0, train::TrainConfig::kMaxLayers - 1, where)),
            int(wholeNumber(j, "head", 0, train::TrainConfig::kMaxDModel - 1, where)), fraction(j, "score", where)};
}

TrainingAction parseTraining(const json& j, const std::string& where) {
    onlyKeys(j, {"settings", "run", "until", "budget"}, where + ": \"training\"");
    TrainingAction a;
    if (j.contains("settings")) a.settings = parseSettings(j["settings"], where + ": \"settings\"");
    if (j.contains("run")) {
        const json& run = j["run"];
        if (run == "start") a.run = TrainingAction::Run::Start;
        else if (run == "pause") a.run = TrainingAction::Run::Pause;
        else if (run == "reset") a.run = TrainingAction::Run::Reset;
        else throw IoError(where + ": \"run\" must be \"start\", \"pause\" or \"reset\"");
    }
    if (j.contains("until")) {
        const json& u = j["until"];
        const std::string at = where + ": \"until\"";
        onlyKeys(u, {"steps", "accuracy", "previous_token", "induction"}, at);
        if (u.contains("steps")) a.until.steps = wholeNumber(u, "steps", 1, 1'000'000, at);
        if (u.contains("accuracy")) a.until.accuracy = fraction(u, "accuracy", at);
        if (u.contains("previous_token")) a.until.previous_token = parseHeadScore(u["previous_token"], at + " \"previous_token\"");
        if (u.contains("induction")) a.until.induction = parseHeadScore(u["induction"], at + " \"induction\"");
        if (a.until.empty()) throw IoError(at + " names no condition (steps, accuracy, previous_token, induction)");
    }
    if (j.contains("budget")) a.budget = wholeNumber(j, "budget", 1, 1'000'000, where);
    if (!a.until.empty() && a.run != TrainingAction::Run::Start)
        throw IoError(where + ": \"until\" needs \"run\": \"start\" (a paused run reaches nothing)");
    const train::TrainConfig c = a.settings.value_or(train::TrainConfig{});
    for (const auto& cond : {a.until.previous_token, a.until.induction})
        if (cond && (cond->layer >= c.layers || cond->head >= c.heads))
            throw IoError(where + ": head " + std::to_string(cond->layer) + "." + std::to_string(cond->head) +
                          " is not in a model of " + std::to_string(c.layers) + " layers of " + std::to_string(c.heads) + " heads");
    return a;
}

std::string percent(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %%", 100 * v);
    return b;
}

std::string decimals(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

std::string headName(const HeadScoreCondition& c) { return std::to_string(c.layer) + "." + std::to_string(c.head); }

double headScore(const std::vector<double>& scores, const HeadScoreCondition& c, int heads_per_layer) {
    const std::size_t index = std::size_t(c.layer * heads_per_layer + c.head);
    return index < scores.size() ? scores[index] : 0.0;
}

}  // namespace

StepActions parseStepActions(const std::string& step_json, const std::string& where) {
    const json s = json::parse(step_json);
    StepActions actions;
    if (s.contains("training")) actions.training = parseTraining(s["training"], where);
    if (s.contains("open_model")) {
        if (!s["open_model"].is_boolean()) throw IoError(where + ": \"open_model\" must be true or false");
        actions.open_model = s["open_model"].get<bool>();
    }
    if (s.contains("ablate_mode") && !s.contains("ablate")) throw IoError(where + ": \"ablate_mode\" without \"ablate\"");
    if (s.contains("ablate")) {
        if (!s["ablate"].is_string()) throw IoError(where + ": \"ablate\" must be a string of heads like \"1.0,1.1\"");
        model::Ablation ablation;
        try {
            for (const model::HeadRef& h : model::parseHeadList(s["ablate"].get<std::string>())) ablation.add(h);
        } catch (const std::invalid_argument& e) {
            throw IoError(where + ": \"ablate\": " + e.what());
        }
        if (s.contains("ablate_mode")) {
            const json& mode = s["ablate_mode"];
            if (mode == "mean") ablation.mode = model::AblationMode::Mean;
            else if (mode != "zero") throw IoError(where + ": \"ablate_mode\" must be \"zero\" or \"mean\"");
        }
        actions.ablate = ablation;
    }
    return actions;
}

bool conditionHolds(const TrainingUntil& u, long long steps, const train::Evaluation& e, int heads_per_layer) {
    if (u.steps && steps < *u.steps) return false;
    if (u.accuracy && e.repeated_accuracy < *u.accuracy) return false;
    if (u.previous_token && headScore(e.previous_token, *u.previous_token, heads_per_layer) < u.previous_token->score)
        return false;
    if (u.induction && headScore(e.prefix_matching, *u.induction, heads_per_layer) < u.induction->score) return false;
    return true;
}

std::string describeCondition(const TrainingUntil& u) {
    std::vector<std::string> parts;
    if (u.steps) parts.push_back("step " + std::to_string(*u.steps));
    if (u.accuracy) parts.push_back("accuracy on the repeated half at least " + percent(*u.accuracy));
    if (u.previous_token)
        parts.push_back("head " + headName(*u.previous_token) + "'s previous-token score at least " +
                        decimals(u.previous_token->score, 2));
    if (u.induction)
        parts.push_back("head " + headName(*u.induction) + "'s induction score at least " + decimals(u.induction->score, 2));
    std::string all;
    for (const std::string& p : parts) all += (all.empty() ? "" : ", ") + p;
    return all;
}

std::string describeEvaluation(const TrainingUntil& u, const train::Evaluation& e, int heads_per_layer) {
    // The loss, and what the condition names: a condition on head scores leaves the repeated half's
    // figures out, so that the lesson's text and this line fit a projector (issue 36 item 6).
    std::string text = "step " + std::to_string(e.step) + ": loss " + decimals(e.loss, 2);
    if (u.accuracy || !(u.previous_token || u.induction))
        text += " (repeated half " + decimals(e.repeated_loss, 2) + "), accuracy on the repeated half " + percent(e.repeated_accuracy);
    if (u.previous_token)
        text += ", head " + headName(*u.previous_token) + "'s previous-token score " +
                decimals(headScore(e.previous_token, *u.previous_token, heads_per_layer), 2);
    if (u.induction)
        text += ", head " + headName(*u.induction) + "'s induction score " +
                decimals(headScore(e.prefix_matching, *u.induction, heads_per_layer), 2);
    return text;
}

std::string headList(const std::vector<model::HeadRef>& heads) {
    std::string list;
    for (const model::HeadRef& h : heads) list += (list.empty() ? "" : ", ") + model::toString(h);
    return (heads.size() == 1 ? "head " : "heads ") + list;
}

bool sameSettings(const train::TrainConfig& a, const train::TrainConfig& b) {
    return a.layers == b.layers && a.d_model == b.d_model && a.heads == b.heads && a.vocab == b.vocab &&
           a.context == b.context && a.mlp == b.mlp && a.tied_embeddings == b.tied_embeddings &&
           a.min_repeat == b.min_repeat && a.max_repeat == b.max_repeat && a.random_start == b.random_start &&
           a.two_copies == b.two_copies && a.learning_rate == b.learning_rate && a.batch == b.batch && a.seed == b.seed &&
           a.warmup_steps == b.warmup_steps && a.weight_decay == b.weight_decay && a.init_std == b.init_std &&
           a.eval_every == b.eval_every && a.eval_sequences == b.eval_sequences && a.max_snapshots == b.max_snapshots;
}

bool trainUntil(train::Trainer& trainer, const TrainingAction& action) {
    const long long budget = action.budget > 0 ? action.budget : 5000;
    const int heads = trainer.config().heads;
    // Evaluations come every eval_every steps: the condition is looked at when one is new.
    auto holds = [&] { return conditionHolds(action.until, trainer.steps(), trainer.evaluations().back(), heads); };
    if (action.until.empty()) return true;
    while (!holds()) {
        if (trainer.steps() >= budget) return false;
        const long long evaluated = trainer.evaluations().back().step;
        while (trainer.evaluations().back().step == evaluated && trainer.steps() < budget) trainer.step();
    }
    return true;
}

}  // namespace headscope::lessons
