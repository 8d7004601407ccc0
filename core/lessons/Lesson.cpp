#include "lessons/Lesson.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "RankTable.h"
#include "Strings.h"
#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"
#include "lessons/Reparametrize.h"

namespace headscope::lessons {

namespace {

using nlohmann::json;
using io::IoError;

constexpr const char* kLessonFormat = "headscope-lesson";
constexpr std::size_t kMaxSteps = 20;

std::string joinProblems(const std::vector<std::string>& problems) {
    std::string all;
    for (const std::string& p : problems) all += (all.empty() ? "" : " ") + p;
    return all;
}

void checkKeys(const json& j, std::initializer_list<const char*> known, const std::string& where) {
    for (const auto& item : j.items())
        if (std::find_if(known.begin(), known.end(), [&](const char* k) { return item.key() == k; }) == known.end())
            throw IoError(where + ": unknown key " + io::quote(item.key()));
}

std::string requireString(const json& j, const char* key, const std::string& where, bool required = true) {
    const auto it = j.find(key);
    if (it == j.end()) {
        if (required) throw IoError(where + ": \"" + key + "\" is missing");
        return {};
    }
    if (!it->is_string()) throw IoError(where + ": \"" + key + "\" must be a string");
    return it->get<std::string>();
}

std::string count(long long v) {
    // 262144 -> "262,144": readable from the back row.
    std::string digits = std::to_string(v < 0 ? -v : v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string number(double v, const char* format) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "infinity" : "-infinity";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return buffer;
}

}  // namespace

const std::vector<std::string>& applyNames() {
    static const std::vector<std::string> names = {"reparametrize_qk"};
    return names;
}

const std::vector<std::pair<std::string, std::string>>& placeholders() {
    static const std::vector<std::pair<std::string, std::string>> list = {
        {"d_model", "width of the embedding"},
        {"heads", "number of heads h"},
        {"d_k", "query/key size of one head"},
        {"d_v", "value size of one head"},
        {"kv_heads", "key/value heads"},
        {"h_d_k", "h * d_k: width of the fused W_Q"},
        {"n_q", "query tokens"},
        {"n_kv", "key/value tokens"},
        {"head", "the step's head"},
        {"rank_qk", "numerical rank of W_QK,i = W_i^Q (W_i^K)^T for the step's head"},
        {"bound_qk", "min(d_k, d_model), the largest rank W_QK,i can have"},
        {"zeros_qk", "singular values of W_QK,i that are zero: d_model - rank_qk"},
        {"rank_ov", "numerical rank of W_OV,i"},
        {"bound_ov", "min(d_v, d_model)"},
        {"rank_logits", "numerical rank of the head's logits Q_i K_i^T (n_q x n_kv)"},
        {"bound_logits", "min(d_k, n_q, n_kv)"},
        {"min_rank_logits", "smallest logits rank over the heads"},
        {"max_rank_logits", "largest logits rank over the heads"},
        {"rank_logits_range", "the logits ranks over the heads: \"8 in every head\" or \"6 to 8\""},
        {"sigma_qk_max", "largest singular value of W_QK,i"},
        {"params_factored", "parameters of W_i^Q and W_i^K: 2 d_model d_k"},
        {"params_merged", "parameters of one merged W_QK,i: d_model^2"},
        {"params_total", "trainable parameters of the layer, biases included"},
        {"flops_factored", "multiply-adds of one head's logits, factored: n_q d_model d_k + n_kv d_model d_k + n_q n_kv d_k"},
        {"flops_merged", "the same through the merged W_QK,i: n_q d_model^2 + n_q n_kv d_model"},
        {"flops_projections", "multiply-adds of the four projections"},
        {"flops_attention_head", "scores and weighted values of one head: n_q n_kv (d_k + d_v)"},
        {"flops_attention_heads", "the same for all h heads"},
        {"flops_attention_full_width", "one head with d_k = d_v = d_model: 2 n_q n_kv d_model"},
        {"diff_fused_per_head", "max |logits| difference, fused W_Q against 3h per-head maps"},
        {"diff_merged", "max |logits| difference, factored against the merged W_QK,i"},
        {"max_abs_logit", "largest |logit|, the scale of the two differences"},
        {"reparam_weight_diff", "max |attention weight| change after W_Q M, W_K M^-T"},
        {"reparam_logit_diff", "max |logit| change after W_Q M, W_K M^-T"},
        {"reparam_factor_change", "max |W_Q M - W_Q|: how much the factors changed"},
        {"reparam_condition", "largest condition number of the M used"},
        {"masked_rows", "queries whose every key is masked"},
        {"masked_row_sum", "sum of the weights of the first fully masked query (0 in HeadScope)"},
        {"nonfinite_weights", "attention weights that are NaN or infinite (0 in HeadScope)"},
        {"wq_outside_slice", "largest |entry| of W_i^Q outside rows i d_k .. (i+1) d_k - 1 (0: the head reads only its slice)"},
    };
    return list;
}

std::map<std::string, std::string> placeholderValues(const Analysis& input, int head) {
    Analysis with_equivalence;
    const Analysis* a = &input;
    if (!input.equivalence) {
        with_equivalence = input;
        addEquivalence(with_equivalence);
        a = &with_equivalence;
    }
    const Config& c = a->config;
    head = std::clamp(head, 0, std::max(0, c.heads - 1));
    std::map<std::string, std::string> v;
    v["d_model"] = count(c.d_model);
    v["heads"] = count(c.heads);
    v["d_k"] = count(c.headDimK());
    v["d_v"] = count(c.headDimV());
    v["kv_heads"] = count(c.kvHeads());
    v["h_d_k"] = count(static_cast<long long>(c.heads) * c.headDimK());
    v["n_q"] = count(a->nQuery());
    v["n_kv"] = count(a->nKeyValue());
    v["head"] = count(head);

    const std::vector<RankRow> ranks = rankTable(*a);
    const RankRow& row = ranks.at(head);
    v["rank_qk"] = count(row.qk);
    v["bound_qk"] = count(row.qk_bound);
    v["zeros_qk"] = count(c.d_model - row.qk);
    v["rank_ov"] = count(row.ov);
    v["bound_ov"] = count(row.ov_bound);
    v["rank_logits"] = count(row.logits);
    v["bound_logits"] = count(row.logits_bound);
    int lo = std::numeric_limits<int>::max(), hi = 0;
    for (const RankRow& r : ranks) lo = std::min(lo, r.logits), hi = std::max(hi, r.logits);
    v["min_rank_logits"] = count(lo);
    v["max_rank_logits"] = count(hi);
    // "8 in every head", never "between 8 and 8" (issue 21).
    v["rank_logits_range"] = lo == hi ? count(lo) + " in every head" : count(lo) + " to " + count(hi);
    const Eigen::VectorXd& sv = a->spectra.at(head).qk.singular_values;
    v["sigma_qk_max"] = number(sv.size() ? sv(0) : 0.0, "%.3g");

    const Cost& cost = a->cost;
    v["params_factored"] = count(cost.qk_factored_params);
    v["params_merged"] = count(cost.qk_merged_params);
    v["params_total"] = count(cost.total_params);
    v["flops_factored"] = count(cost.logits_factored_flops);
    v["flops_merged"] = count(cost.logits_merged_flops);
    v["flops_projections"] = count(cost.projection_flops);
    v["flops_attention_head"] = count(cost.attention_flops_per_head);
    v["flops_attention_heads"] = count(cost.attention_flops_all_heads);
    v["flops_attention_full_width"] = count(cost.attention_flops_full_width);

    v["diff_fused_per_head"] = number(a->equivalence->fused_vs_per_head, "%.1e");
    v["diff_merged"] = number(a->equivalence->factored_vs_merged, "%.1e");
    v["max_abs_logit"] = number(a->equivalence->max_abs_logit, "%.3g");

    const ReparametrizeCheck re = checkReparametrization(*a);
    v["reparam_weight_diff"] = number(re.max_weight_diff, "%.1e");
    v["reparam_logit_diff"] = number(re.max_logit_diff, "%.1e");
    v["reparam_factor_change"] = number(re.max_factor_change, "%.3g");
    v["reparam_condition"] = number(re.max_condition, "%.2g");

    int masked = 0, nonfinite = 0;
    double first_masked_sum = 0;
    bool found = false;
    for (Eigen::Index i = 0; i < a->results.allowed.rows(); ++i)
        if (!a->results.allowed.row(i).any()) {
            ++masked;
            if (!found) first_masked_sum = a->results.heads.at(head).weights.row(i).sum(), found = true;
        }
    for (const HeadResult& h : a->results.heads)
        nonfinite += static_cast<int>((!h.weights.array().isFinite()).count());
    v["masked_rows"] = count(masked);
    v["masked_row_sum"] = found ? number(first_masked_sum, "%g") : "none";
    v["nonfinite_weights"] = count(nonfinite);

    const int d_k = a->weights().d_k;
    const auto wq = a->weights().queryHead(head);
    double outside = 0;
    for (Eigen::Index r = 0; r < wq.rows(); ++r)
        if (r < head * d_k || r >= (head + 1) * d_k) outside = std::max(outside, double(wq.row(r).cwiseAbs().maxCoeff()));
    v["wq_outside_slice"] = number(outside, "%.3g");
    return v;
}

std::vector<std::string> templateNames(const std::string& templ) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < templ.size(); ++i) {
        if (templ[i] == '{' && i + 1 < templ.size() && templ[i + 1] == '{') { ++i; continue; }
        if (templ[i] == '}' && i + 1 < templ.size() && templ[i + 1] == '}') { ++i; continue; }
        if (templ[i] != '{') continue;
        const std::size_t end = templ.find('}', i);
        if (end == std::string::npos) throw IoError("a \"{\" is never closed (write {{ for a brace)");
        names.push_back(templ.substr(i + 1, end - i - 1));
        i = end;
    }
    return names;
}

std::string fillTemplate(const std::string& templ, const std::map<std::string, std::string>& values) {
    std::string out;
    for (std::size_t i = 0; i < templ.size(); ++i) {
        if ((templ[i] == '{' || templ[i] == '}') && i + 1 < templ.size() && templ[i + 1] == templ[i]) {
            out += templ[i++];
            continue;
        }
        if (templ[i] != '{') { out += templ[i]; continue; }
        const std::size_t end = templ.find('}', i);
        if (end == std::string::npos) throw IoError("a \"{\" is never closed (write {{ for a brace)");
        const std::string name = templ.substr(i + 1, end - i - 1);
        const auto it = values.find(name);
        if (it == values.end()) throw IoError("unknown placeholder {" + name + "}");
        out += it->second;
        i = end;
    }
    return out;
}

namespace {

bool knownPlaceholder(const std::string& name) {
    const auto& list = placeholders();
    return std::any_of(list.begin(), list.end(), [&](const auto& p) { return p.first == name; });
}

void checkTemplate(const std::string& templ, const std::string& where) {
    std::vector<std::string> names;
    try {
        names = templateNames(templ);
    } catch (const IoError& e) {
        throw IoError(where + ": " + e.what());
    }
    for (const std::string& n : names)
        if (!knownPlaceholder(n)) throw IoError(where + ": unknown placeholder {" + n + "}");
}

io::SessionData applyObject(const io::SessionData& base, const json& object, const std::string& where) {
    if (!object.is_object()) throw IoError(where + ": \"config\" must be an object of session keys");
    try {
        return io::applySessionKeys(base, object.dump());
    } catch (const IoError& e) {
        throw IoError(where + ": " + e.what());
    }
}

void checkConfig(const Config& c, const std::string& where) {
    const std::vector<std::string> problems = c.validate();
    if (!problems.empty()) throw IoError(where + ": the configuration is not valid: " + joinProblems(problems));
}

}  // namespace

Lesson parseLesson(const std::string& text, const std::string& name) {
    json j;
    try {
        j = io::parseJsonText(text, name);
    } catch (const IoError& e) {
        throw IoError(e.what());
    }
    if (!j.is_object()) throw IoError(name + ": a lesson must be a JSON object");
    checkKeys(j, {"format", "version", "number", "title", "config", "steps"}, name);
    if (requireString(j, "format", name) != kLessonFormat)
        throw IoError(name + ": \"format\" must be \"" + kLessonFormat + "\"");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<long long>() != 1)
        throw IoError(name + ": \"version\" must be 1");
    Lesson lesson;
    if (!j.contains("number") || !j["number"].is_number_integer() || j["number"].get<long long>() < 1 ||
        j["number"].get<long long>() > 99)
        throw IoError(name + ": \"number\" must be a whole number from 1 to 99");
    lesson.number = j["number"].get<int>();
    lesson.title = requireString(j, "title", name);
    io::SessionData base;
    if (j.contains("config")) base = applyObject(base, j["config"], name);
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty() || j["steps"].size() > kMaxSteps)
        throw IoError(name + ": \"steps\" must be a list of 1 to " + std::to_string(kMaxSteps) + " steps");
    int index = 0;
    for (const json& s : j["steps"]) {
        const std::string where = name + ", step " + std::to_string(++index);
        if (!s.is_object()) throw IoError(where + ": a step must be a JSON object");
        checkKeys(s, {"title", "text", "config", "show", "head", "look_at", "apply", "training", "open_model", "ablate", "ablate_mode",
                      "focus"}, where);
        LessonStep step;
        step.title = requireString(s, "title", where);
        step.text = requireString(s, "text", where);
        step.look_at = requireString(s, "look_at", where, false);
        if (s.contains("show")) step.show = requireString(s, "show", where);
        step.apply = requireString(s, "apply", where, false);
        const auto& applies = applyNames();
        if (!step.apply.empty() && std::find(applies.begin(), applies.end(), step.apply) == applies.end())
            throw IoError(where + ": \"apply\" " + io::quote(step.apply) + " is not known (reparametrize_qk)");
        step.focus = requireString(s, "focus", where, false);
        if (!step.focus.empty() && std::find(focusNames().begin(), focusNames().end(), step.focus) == focusNames().end())
            throw IoError(where + ": \"focus\" " + io::quote(step.focus) + " is not known (" + joinStrings(focusNames(), ", ") + ")");
        step.session = s.contains("config") ? applyObject(base, s["config"], where) : base;
        checkConfig(step.session.config, where);
        if (s.contains("head")) {
            if (!s["head"].is_number_integer()) throw IoError(where + ": \"head\" must be a whole number");
            step.head = s["head"].get<int>();
        }
        if (step.head < 0 || step.head >= step.session.config.heads)
            throw IoError(where + ": head " + std::to_string(step.head) + " does not exist (there are " +
                          std::to_string(step.session.config.heads) + " heads)");
        step.actions = parseStepActions(s.dump(), where);
        checkTemplate(step.title, where);
        checkTemplate(step.text, where);
        checkTemplate(step.look_at, where);
        lesson.steps.push_back(std::move(step));
    }
    return lesson;
}

void checkViews(const Lesson& lesson, const std::string& name, const std::vector<std::string>& views) {
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
        const std::string& show = lesson.steps[k].show;
        if (std::find(views.begin(), views.end(), show) != views.end()) continue;
        std::string known;
        for (const std::string& v : views) known += (known.empty() ? "" : ", ") + v;
        throw IoError(name + ", step " + std::to_string(k + 1) + ": \"show\" " + io::quote(show) +
                      " is not a view (the views are: " + known + ")");
    }
}

Preset parsePreset(const std::string& text, const std::string& name) {
    json j = io::parseJsonText(text, name);
    if (!j.is_object()) throw IoError(name + ": a preset must be a JSON object");
    Preset preset;
    preset.name = requireString(j, "name", name, false);
    preset.description = requireString(j, "description", name, false);
    j.erase("name");
    j.erase("description");
    try {
        preset.session = io::sessionFromJson(j.dump());
    } catch (const IoError& e) {
        throw IoError(name + ": " + e.what());
    }
    checkConfig(preset.session.config, name);
    return preset;
}

std::string plainText(const std::string& rich) {
    static const std::pair<const char*, const char*> entities[] = {
        {"&le;", "\u2264"},    {"&ge;", "\u2265"},   {"&times;", "\u00d7"}, {"&middot;", "\u00b7"},
        {"&minus;", "\u2212"}, {"&radic;", "\u221a"}, {"&lt;", "<"},          {"&gt;", ">"},
        {"&nbsp;", " "},       {"&rarr;", "\u2192"},  {"&ne;", "\u2260"},     {"&asymp;", "\u2248"},
        {"&sigma;", "\u03c3"}, {"&infin;", "\u221e"}, {"&hellip;", "\u2026"}, {"&mdash;", "\u2014"},
        {"&ndash;", "\u2013"}, {"&sup2;", "\u00b2"},  {"&quot;", "\""},       {"&amp;", "&"}};
    std::string out;
    for (std::size_t i = 0; i < rich.size();) {
        if (rich[i] == '<') {
            const std::size_t end = rich.find('>', i);
            if (end == std::string::npos) { out += rich.substr(i); break; }
            std::string tag = rich.substr(i + 1, end - i - 1);
            std::transform(tag.begin(), tag.end(), tag.begin(), [](unsigned char ch) { return std::tolower(ch); });
            if (tag == "sub") out += '_';
            else if (tag == "sup") out += '^';
            else if (tag == "br" || tag == "br/" || tag == "br /") out += '\n';
            else if (tag == "/p") out += "\n\n";
            else if (tag == "b" || tag == "/b") out += "**";
            else if (tag == "i" || tag == "/i") out += '*';
            i = end + 1;
            continue;
        }
        if (rich[i] == '&') {
            bool replaced = false;
            for (const auto& [entity, text] : entities) {
                const std::string e = entity;
                if (rich.compare(i, e.size(), e) == 0) {
                    out += text;
                    i += e.size();
                    replaced = true;
                    break;
                }
            }
            if (replaced) continue;
        }
        out += rich[i++];
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

}  // namespace headscope::lessons
