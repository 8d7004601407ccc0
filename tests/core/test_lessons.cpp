// Lessons and presets are data: every file loads, every step's configuration validates, every
// number a step quotes is the engine's for that step, and lesson 1's M / M^-T step leaves the
// attention unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "Analysis.h"
#include "RankTable.h"
#include "io/IoError.h"
#include "io/SessionFile.h"
#include "lessons/Lesson.h"
#include "lessons/Reparametrize.h"

using namespace headscope;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << "cannot open " << path;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string resource(const std::string& relative) { return readText(std::string(HEADSCOPE_RESOURCES_DIR) + "/" + relative); }

lessons::Lesson lessonFile(int n) {
    const std::string name = "lesson-" + std::to_string(n) + ".json";
    return lessons::parseLesson(resource("lessons/" + name), name);
}

// "262,144" -> 262144
long long asCount(const std::string& text) {
    std::string digits;
    for (char c : text)
        if (c != ',') digits += c;
    return std::stoll(digits);
}

const char* kPresets[] = {"paper-base", "bert-base", "gpt2-small", "single-head", "fixed-head-size", "tiny"};

}  // namespace

TEST(LessonFiles, EveryLessonLoadsAndEveryStepValidates) {
    for (int n = 1; n <= 7; ++n) {
        SCOPED_TRACE("lesson " + std::to_string(n));
        lessons::Lesson lesson;
        ASSERT_NO_THROW(lesson = lessonFile(n));
        EXPECT_EQ(lesson.number, n);
        EXPECT_FALSE(lesson.title.empty());
        EXPECT_GE(lesson.steps.size(), 3u);
        for (const auto& step : lesson.steps) {
            EXPECT_TRUE(step.session.config.validate().empty()) << step.title;
            EXPECT_FALSE(step.text.empty());
        }
    }
}

TEST(LessonFiles, EveryPresetLoadsWithItsGeometry) {
    for (const char* name : kPresets) {
        SCOPED_TRACE(name);
        lessons::Preset p;
        ASSERT_NO_THROW(p = lessons::parsePreset(resource(std::string("presets/") + name + ".json"), name));
        EXPECT_FALSE(p.name.empty());
        EXPECT_TRUE(p.session.config.validate().empty());
    }
    const auto paper = lessons::parsePreset(resource("presets/paper-base.json"), "paper");
    EXPECT_EQ(paper.session.config.d_model, 512);
    EXPECT_EQ(paper.session.config.heads, 8);
    const auto bert = lessons::parsePreset(resource("presets/bert-base.json"), "bert");
    EXPECT_EQ(bert.session.config.d_model, 768);
    EXPECT_EQ(bert.session.config.heads, 12);
    const auto gpt2 = lessons::parsePreset(resource("presets/gpt2-small.json"), "gpt2");
    EXPECT_EQ(gpt2.session.config.headDimK(), 64);
    EXPECT_EQ(gpt2.session.config.mask, MaskKind::Causal);
    const auto fixed = lessons::parsePreset(resource("presets/fixed-head-size.json"), "fixed");
    EXPECT_EQ(fixed.session.config.d_k, 64);  // fixed, not derived from d_model / heads
    const auto tiny = lessons::parsePreset(resource("presets/tiny.json"), "tiny");
    EXPECT_EQ(tiny.session.config.d_model, 8);
    EXPECT_EQ(tiny.session.config.heads, 2);
    EXPECT_EQ(tiny.session.view.cell_numbers, std::optional<bool>(true));
}

// Every quoted number is filled from the engine, and the ones with a closed form agree with it.
TEST(LessonFiles, QuotedNumbersEqualTheEngineForEachStep) {
    int checked = 0;
    for (int n = 1; n <= 6; ++n) {
        const lessons::Lesson lesson = lessonFile(n);
        for (std::size_t s = 0; s < lesson.steps.size(); ++s) {
            const auto& step = lesson.steps[s];
            SCOPED_TRACE("lesson " + std::to_string(n) + " step " + std::to_string(s + 1));
            const Config& c = step.session.config;
            const Analysis a = analyze(c, true);
            const auto v = lessons::placeholderValues(a, step.head);
            const std::string text = lessons::fillTemplate(step.text, v);
            EXPECT_EQ(text.find('{'), std::string::npos) << text;
            for (const std::string& name : lessons::templateNames(step.text)) {
                ASSERT_TRUE(v.count(name)) << name;
                EXPECT_THAT(text, HasSubstr(v.at(name)));
            }
            const long long d = c.d_model, dk = c.headDimK(), nq = a.nQuery(), nkv = a.nKeyValue();
            const RankRow row = rankTable(a).at(step.head);
            EXPECT_EQ(asCount(v.at("d_model")), d);
            EXPECT_EQ(asCount(v.at("d_k")), dk);
            EXPECT_EQ(asCount(v.at("n_q")), static_cast<long long>(a.input.query.tokens.size()));
            EXPECT_EQ(asCount(v.at("rank_qk")), row.qk);
            EXPECT_EQ(asCount(v.at("rank_logits")), row.logits);
            EXPECT_EQ(asCount(v.at("bound_qk")), std::min(dk, d));
            EXPECT_EQ(asCount(v.at("bound_logits")), std::min({dk, nq, nkv}));
            EXPECT_EQ(asCount(v.at("zeros_qk")), d - row.qk);
            // Closed forms, written here independently of Cost.
            EXPECT_EQ(asCount(v.at("params_factored")), 2 * d * dk);
            EXPECT_EQ(asCount(v.at("params_merged")), d * d);
            EXPECT_EQ(asCount(v.at("flops_factored")), nq * d * dk + nkv * d * dk + nq * nkv * dk);
            EXPECT_EQ(asCount(v.at("flops_merged")), nq * d * d + nq * nkv * d);
            EXPECT_EQ(asCount(v.at("flops_attention_heads")), c.heads * nq * nkv * (dk + c.headDimV()));
            EXPECT_EQ(asCount(v.at("flops_attention_full_width")), 2 * nq * nkv * d);
            // Random init: the rank reaches its bound; identity: so does it (I has full rank).
            if (c.init != InitKind::Normal) { EXPECT_EQ(row.qk, std::min(dk, d)); }
            ++checked;
        }
    }
    std::printf("checked the numbers of %d steps\n", checked);
    EXPECT_GE(checked, 20);
}

// The words the lessons teach, checked on the filled text.
// A slide has no status line (issue 21: "Look at: the status line" on slides without one):
// a step that names it also names what the slide itself shows.
TEST(LessonFiles, LookAtNeverNamesOnlyTheStatusLine) {
    for (int n = 1; n <= 6; ++n)
        for (const auto& step : lessonFile(n).steps)
            if (step.look_at.find("status line") != std::string::npos) {
                EXPECT_THAT(step.look_at, HasSubstr("above")) << "lesson " << n << ": " << step.look_at;
            }
}

TEST(LessonFiles, KeyStepsSayWhatTheEngineComputes) {
    const lessons::Lesson one = lessonFile(1);
    {
        const auto& step = one.steps[1];
        const Analysis a = analyze(step.session.config, true);
        const std::string text = lessons::fillTemplate(step.text, lessons::placeholderValues(a, step.head));
        EXPECT_THAT(text, HasSubstr("rank of W<sub>QK</sub> for head 0: 16, though the matrix is 64 &times; 64"));
    }
    {
        const auto& step = one.steps[2];  // the paper's size
        const Analysis a = analyze(step.session.config, true);
        const std::string text = lessons::fillTemplate(step.text, lessons::placeholderValues(a, step.head));
        EXPECT_THAT(text, HasSubstr("65,536"));
        EXPECT_THAT(text, HasSubstr("262,144"));
    }
    const lessons::Lesson five = lessonFile(5);
    const auto& masked = five.steps.back();
    const Analysis a = analyze(masked.session.config, true);
    const auto v = lessons::placeholderValues(a, masked.head);
    EXPECT_EQ(v.at("masked_rows"), "1");
    EXPECT_EQ(v.at("masked_row_sum"), "0");
    EXPECT_EQ(v.at("nonfinite_weights"), "0");
    const lessons::Lesson six = lessonFile(6);
    for (const auto& step : six.steps) {
        const Analysis b = analyze(step.session.config, true);
        const auto w = lessons::placeholderValues(b, step.head);
        EXPECT_EQ(asCount(w.at("max_rank_logits")), std::min<long long>(step.session.config.headDimK(), b.nQuery()));
        // "8 in every head" or "6 to 8", never "between 8 and 8" (issue 21).
        const std::string& lo = w.at("min_rank_logits");
        const std::string& hi = w.at("max_rank_logits");
        EXPECT_EQ(w.at("rank_logits_range"), lo == hi ? lo + " in every head" : lo + " to " + hi);
        EXPECT_THAT(lessons::fillTemplate(step.text, w), Not(HasSubstr("between " + lo + " and " + lo)));
    }
    const lessons::Lesson three = lessonFile(3);
    const Analysis id = analyze(three.steps[1].session.config, true);
    EXPECT_EQ(lessons::placeholderValues(id, three.steps[1].head).at("wq_outside_slice"), "0");
    const Analysis learned = analyze(three.steps[0].session.config, true);
    EXPECT_NE(lessons::placeholderValues(learned, three.steps[0].head).at("wq_outside_slice"), "0");
}

// (W_Q M)(W_K M^-T)^T = W_Q W_K^T: the live weights of lesson 1's last step, attention unchanged.
TEST(Reparametrize, WqMAndWkMinvTLeaveTheAttentionUnchanged) {
    const lessons::Lesson one = lessonFile(1);
    const Analysis a = analyze(one.steps.back().session.config, true);
    const lessons::ReparametrizeCheck check = lessons::checkReparametrization(a, 7);
    std::printf("M / M^-T: max |weights' - weights| = %.3g, max |logits' - logits| = %.3g (max |logit| %.3g), "
                "factors changed by up to %.3g, cond(M) <= %.3g\n",
                check.max_weight_diff, check.max_logit_diff, a.equivalence->max_abs_logit, check.max_factor_change,
                check.max_condition);
    constexpr double kWeightTolerance = 1e-5, kLogitTolerance = 1e-4;  // float32 rounding through d_k = 16
    EXPECT_LT(check.max_weight_diff, kWeightTolerance);
    EXPECT_LT(check.max_logit_diff, kLogitTolerance * std::max(1.0, a.equivalence->max_abs_logit));
    EXPECT_GT(check.max_factor_change, 0.05);  // the factors really are different
    EXPECT_LE(check.max_condition, 4.0);
}

// The step says so in its file, and what the views then draw is W_Q M, W_K M^-T's own forward
// pass: other factors, the same attention (within the tolerance the check above states).
TEST(Reparametrize, LessonOnesLastStepAppliesItToTheWeightsTheViewsDraw) {
    const lessons::Lesson one = lessonFile(1);
    EXPECT_EQ(one.steps.back().apply, "reparametrize_qk");
    for (std::size_t k = 0; k + 1 < one.steps.size(); ++k) EXPECT_EQ(one.steps[k].apply, "") << "step " << k + 1;
    const Analysis a = analyze(one.steps.back().session.config, true);
    const Analysis r = lessons::reparametrizedAnalysis(a);
    EXPECT_TRUE(r.weights().W_Q.isApprox(lessons::reparametrizeQK(a.weights(), lessons::kLessonSeed).weights.W_Q));
    EXPECT_GT((r.weights().W_Q - a.weights().W_Q).cwiseAbs().maxCoeff(), 0.05);
    EXPECT_TRUE(r.weights().W_V == a.weights().W_V && r.weights().W_O == a.weights().W_O);
    ASSERT_EQ(r.results.heads.size(), a.results.heads.size());
    double diff = 0;
    for (std::size_t h = 0; h < a.results.heads.size(); ++h)
        diff = std::max(diff, double((r.results.heads[h].weights - a.results.heads[h].weights).cwiseAbs().maxCoeff()));
    EXPECT_LT(diff, 1e-5);
    EXPECT_EQ(lessons::placeholderValues(a, 0).at("reparam_weight_diff"),
              [&] { char b[32]; std::snprintf(b, sizeof b, "%.1e", diff); return std::string(b); }());
}

// The check is sensitive: transforming W_Q alone (forgetting M^-T on W_K) changes the attention.
TEST(Reparametrize, TransformingOnlyOneFactorChangesTheAttention) {
    Config c;
    c.heads = 4;
    const Analysis a = analyze(c, false);
    lessons::Reparametrized r = lessons::reparametrizeQK(a.weights(), 7);
    r.weights.W_K = a.weights().W_K;
    r.weights.b_K = a.weights().b_K;
    const Results again = forward(AttentionOptions::from(c), r.weights, a.input.query.X, a.input.key_value.X);
    double diff = 0;
    for (std::size_t h = 0; h < again.heads.size(); ++h)
        diff = std::max(diff, double((again.heads[h].weights - a.results.heads[h].weights).cwiseAbs().maxCoeff()));
    std::printf("W_Q M alone: max |weights' - weights| = %.3g\n", diff);
    EXPECT_GT(diff, 1e-3);
}

TEST(LessonParser, ErrorsNameTheFileTheStepAndTheProblem) {
    const auto error = [](const std::string& json) {
        try {
            lessons::parseLesson(json, "lesson-9.json");
        } catch (const io::IoError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string head = R"({"format": "headscope-lesson", "version": 1, "number": 9, "title": "t", )";
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "rank {rank_q}"}]})"),
                HasSubstr("lesson-9.json, step 1: unknown placeholder {rank_q}"));
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "x", "config": {"d_model": 100}}]})"),
                HasSubstr("lesson-9.json, step 1: the configuration is not valid: d_model 100"));
    // A step's view is checked against the views the GUI registers (checkViews; test_view_registry).
    const lessons::Lesson pie = lessons::parseLesson(head + R"("steps": [{"title": "a", "text": "x"}, {"title": "b", "text": "x", "show": "pie"}]})", "lesson-9.json");
    try {
        lessons::checkViews(pie, "lesson-9.json", {"heads", "spectra"});
        ADD_FAILURE() << "a step showing 'pie' passed";
    } catch (const io::IoError& e) {
        EXPECT_STREQ(e.what(), "lesson-9.json, step 2: \"show\" 'pie' is not a view (the views are: heads, spectra)");
    }
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "x", "config": {"dmodel": 8}}]})"),
                HasSubstr("unknown session key 'dmodel'"));
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "x {d_k"}]})"), HasSubstr("never closed"));
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "x", "head": 8}]})"), HasSubstr("head 8 does not exist"));
    EXPECT_THAT(error(head + R"("steps": []})"), HasSubstr("\"steps\" must be a list"));
    EXPECT_THAT(error(head + R"("steps": [{"title": "a", "text": "x", "apply": "shuffle"}]})"),
                HasSubstr("lesson-9.json, step 1: \"apply\" 'shuffle' is not known"));
    EXPECT_THAT(error("{"), HasSubstr("not valid JSON"));
}

TEST(LessonParser, TrainingActionsParseAndTheirErrorsNameTheStep) {
    const std::string head = R"({"format": "headscope-lesson", "version": 1, "number": 9, "title": "t", "steps": [{"title": "a", "text": "x")";
    const auto parse = [&](const std::string& actions) {
        return lessons::parseLesson(head + (actions.empty() ? "" : ", ") + actions + "}]}", "lesson-9.json");
    };
    const auto error = [&](const std::string& actions) {
        try {
            parse(actions);
        } catch (const io::IoError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const lessons::Lesson l = parse(R"("training": {"settings": {"layers": 1, "seed": 3, "learning_rate": 0.01}, "run": "start",
        "until": {"accuracy": 0.5, "induction": {"layer": 0, "head": 1, "score": 0.4}}, "budget": 300}, "ablate": "0.1, 0.0", "ablate_mode": "mean")");
    const lessons::StepActions& a = l.steps[0].actions;
    ASSERT_TRUE(a.training && a.training->settings);
    EXPECT_EQ(a.training->settings->layers, 1);
    EXPECT_EQ(a.training->settings->seed, 3u);
    EXPECT_EQ(a.training->settings->d_model, train::TrainConfig{}.d_model);  // the defaults for keys not given
    EXPECT_EQ(a.training->run, lessons::TrainingAction::Run::Start);
    EXPECT_EQ(a.training->until.accuracy, 0.5);
    ASSERT_TRUE(a.training->until.induction);
    EXPECT_EQ(a.training->until.induction->head, 1);
    EXPECT_EQ(a.training->budget, 300);
    ASSERT_TRUE(a.ablate);
    EXPECT_EQ(a.ablate->heads, (std::vector<model::HeadRef>{{0, 0}, {0, 1}}));
    EXPECT_EQ(a.ablate->mode, model::AblationMode::Mean);
    EXPECT_FALSE(parse("").steps[0].actions.any());

    EXPECT_EQ(error(R"("training": {"run": "go"})"), "lesson-9.json, step 1: \"run\" must be \"start\", \"pause\" or \"reset\"");
    EXPECT_EQ(error(R"("training": {"until": {"steps": 10}})"),
              "lesson-9.json, step 1: \"until\" needs \"run\": \"start\" (a paused run reaches nothing)");
    EXPECT_EQ(error(R"("training": {"run": "start", "until": {}})"),
              "lesson-9.json, step 1: \"until\" names no condition (steps, accuracy, previous_token, induction)");
    EXPECT_EQ(error(R"("training": {"run": "start", "until": {"induction": {"layer": 2, "head": 0, "score": 0.5}}})"),
              "lesson-9.json, step 1: head 2.0 is not in a model of 2 layers of 2 heads");
    EXPECT_EQ(error(R"("training": {"settings": {"heads": 3}})"),
              "lesson-9.json, step 1: \"settings\": " + train::TrainConfig{.heads = 3}.problem());
    EXPECT_EQ(error(R"("training": {"run": "start", "until": {"accuracy": 1.5}})"),
              "lesson-9.json, step 1: \"until\": \"accuracy\" must be a number from 0 to 1");
    EXPECT_THAT(error(R"("ablate": "1-0")"), HasSubstr("lesson-9.json, step 1: \"ablate\": "));
    EXPECT_EQ(error(R"("ablate": "1.0", "ablate_mode": "half")"), "lesson-9.json, step 1: \"ablate_mode\" must be \"zero\" or \"mean\"");
    EXPECT_EQ(error(R"("open_model": 1)"), "lesson-9.json, step 1: \"open_model\" must be true or false");
}

TEST(LessonTraining, ConditionsHoldOnlyWhenEveryOneDoes) {
    lessons::TrainingUntil until;
    until.steps = 100;
    until.accuracy = 0.9;
    until.induction = lessons::HeadScoreCondition{1, 1, 0.5};
    train::Evaluation e;
    e.step = 150;
    e.repeated_accuracy = 0.95;
    e.previous_token = {0.3, 0.1, 0.0, 0.0};
    e.prefix_matching = {0.0, 0.0, 0.2, 0.6};  // layer * 2 + head: head 1.1 is the last
    EXPECT_TRUE(lessons::conditionHolds(until, 150, e, 2));
    EXPECT_FALSE(lessons::conditionHolds(until, 99, e, 2));
    e.prefix_matching[3] = 0.49;
    EXPECT_FALSE(lessons::conditionHolds(until, 150, e, 2));
    e.prefix_matching[3] = 0.6;
    e.repeated_accuracy = 0.89;
    EXPECT_FALSE(lessons::conditionHolds(until, 150, e, 2));
    EXPECT_EQ(lessons::describeCondition(until),
              "step 100, accuracy on the repeated half at least 90.0 %, head 1.1's induction score at least 0.50");
    EXPECT_EQ(lessons::headList({{1, 0}, {1, 1}}), "heads 1.0, 1.1");
}

TEST(LessonTemplate, FillsBracesAndConvertsRichText) {
    EXPECT_EQ(lessons::fillTemplate("{{a}} {x}", {{"x", "1"}}), "{a} 1");
    EXPECT_THROW(lessons::fillTemplate("{y}", {{"x", "1"}}), io::IoError);
    EXPECT_EQ(lessons::plainText("W<sub>Q</sub> &le; d<sup>2</sup> &times; 3"), "W_Q \u2264 d^2 \u00d7 3");
}

// Sessions keep the view settings; files written before they existed still load.
TEST(SessionViewSettings, RoundTripAndOldFilesLoad) {
    io::SessionData s;
    s.config.d_model = 32;
    s.view.show_logits = true;
    s.view.font_scale = 1.75;
    s.view.cell_numbers = true;
    const io::SessionData back = io::sessionFromJson(io::sessionToJson(s));
    EXPECT_EQ(back.config, s.config);
    EXPECT_EQ(back.view, s.view);
    const std::string old = R"({"format": "headscope-session", "version": 1, "d_model": 16, "heads": 2})";
    const io::SessionData o = io::sessionFromJson(old);
    EXPECT_EQ(o.config.d_model, 16);
    EXPECT_TRUE(o.view.empty());
    EXPECT_EQ(io::configFromJson(io::sessionToJson(s)).d_model, 32);  // configFromJson reads new files too
    EXPECT_THROW(io::sessionFromJson(R"({"format": "headscope-session", "version": 1, "view": {"font": 2}})"),
                 io::IoError);
    // A config patch needs no header and keeps what it does not name.
    const io::SessionData patched = io::applySessionKeys(s, R"({"heads": 4, "view": {"show_logits": false}})");
    EXPECT_EQ(patched.config.d_model, 32);
    EXPECT_EQ(patched.config.heads, 4);
    EXPECT_EQ(patched.view.show_logits, std::optional<bool>(false));
    EXPECT_EQ(patched.view.font_scale, std::optional<double>(1.75));
}
