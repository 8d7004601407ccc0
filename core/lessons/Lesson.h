#pragma once
// Guided lessons, stored as data (resources/lessons/lesson-N.json), never as code:
//
//   {"format": "headscope-lesson", "version": 1, "number": 1, "title": "One matrix or two",
//    "config": {...session keys...},            applied over the built-in demo for every step
//    "steps": [{"title": "...",
//               "text": "Qt rich text with entities, <sub>/<sup> and {placeholders}",
//               "config": {...session keys...},  applied over the lesson's config (texts too)
//               "show": "heads",                 the view's id in the GUI's registry (ui/views/
//                                                ViewRegistry.h): heads, spectra, score, training...
//               "head": 0,                       the head the view and the numbers are about
//               "look_at": "what to look at (rich text, placeholders too)",
//               "apply": "reparametrize_qk"}]}       optional: what the step does to the live
//                                                weights (W_Q M, W_K M^-T; Reparametrize.h)
//               "training": {...}, "open_model": true, "ablate": "1.0,1.1"
//                                                optional: drive the Training tab, open the model it
//                                                trained, knock heads out (LessonTraining.h)
//
// Every number a step quotes is a placeholder filled from the engine for that step's
// configuration (placeholderValues), never typed in. A step's configuration is
// default Config + lesson config + step config, so it is the same wherever it is shown.

#include <map>
#include <string>
#include <vector>

#include "Analysis.h"
#include "io/SessionFile.h"
#include "lessons/LessonTraining.h"

namespace headscope::lessons {

struct LessonStep {
    std::string title;
    std::string text;       // template
    std::string look_at;    // template
    std::string show = "heads";
    int head = 0;
    io::SessionData session;  // the full configuration and view settings of this step
    std::string apply;        // "" or one of applyNames(): done to the weights the views show
    std::string focus;        // "" or one of focusNames(): the part of the view the step names, shown first
    StepActions actions;      // training, opening the trained model, knocking heads out
};

struct Lesson {
    int number = 0;
    std::string title;
    std::vector<LessonStep> steps;
};

// What a step may apply to the live weights: "reparametrize_qk" (W_Q M, W_K M^-T).
const std::vector<std::string>& applyNames();

// The parts of a view a step may name as its "focus", which the view shows first where it has
// no room for all of it (1024 x 768 at 2x): the sections of the Costs table; the Training tab's
// loss curves, head scores, probe attention ("attention") and settings, one page at a time there;
// "equivalence", the status line's logits residuals (its one line in a low window); "activations",
// the Projections tab's Q, K, V (its first row of panels).
inline const std::vector<std::string>& focusNames() {
    static const std::vector<std::string> names = {"parameters", "logits", "projections", "attention", "layer",
                                                   "curves", "scores", "settings", "equivalence", "activations"};
    return names;
}

// Parses and validates a lesson file's text: shape, keys, every placeholder known, every
// step's configuration valid (Config::validate), its head in range and its actions well formed.
// Throws io::IoError with one sentence naming `name` and the step ("lesson-1.json, step 3: ...").
// The views are the GUI's (ViewRegistry): checkViews checks a step's "show" against them.
Lesson parseLesson(const std::string& json, const std::string& name);
// io::IoError naming the first step whose "show" is not one of views, and listing views.
void checkViews(const Lesson& lesson, const std::string& name, const std::vector<std::string>& views);

// A preset (resources/presets/*.json): a session file with an optional "name" and
// "description". Throws io::IoError naming `name`; the configuration must validate.
struct Preset {
    std::string name, description;
    io::SessionData session;
};
Preset parsePreset(const std::string& json, const std::string& name);

// Every placeholder a template may use, with what it means ("rank_qk": "numerical rank of
// W_QK,i for the step's head"). README and tests read it.
const std::vector<std::pair<std::string, std::string>>& placeholders();

// Every placeholder's value for `head` of analysis (numbers as the step shows them).
// Computes the equivalence residuals when the analysis has none, and the M / M^-T check.
std::map<std::string, std::string> placeholderValues(const Analysis& analysis, int head);

// Replaces each {name} of templ with values[name]; "{{" and "}}" stay literal braces.
// Throws io::IoError on an unknown or unterminated placeholder.
std::string fillTemplate(const std::string& templ, const std::map<std::string, std::string>& values);

// The placeholder names templ uses (in order, repeats kept).
std::vector<std::string> templateNames(const std::string& templ);

// The step's rich text with HTML tags removed and the common entities turned into characters,
// for a Markdown handout or a terminal ("W<sub>Q</sub> &le; d" -> "W_Q ≤ d").
std::string plainText(const std::string& rich_text);

}  // namespace headscope::lessons
