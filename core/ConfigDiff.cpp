#include "ConfigDiff.h"

#include <cstdio>
#include <functional>

namespace headscope {
namespace {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::string onOff(bool on) { return on ? "on" : "off"; }

// 0 means derived: the value it takes, and from what ("8 (= d_model/heads)").
std::string dimension(int value, int derived_value, const char* derived) {
    return value > 0 ? std::to_string(value) : std::to_string(derived_value) + " (= " + derived + ")";
}

std::string keys(const std::vector<int>& padded) {
    if (padded.empty()) return "none";
    std::string list;
    for (std::size_t i = 0; i < padded.size() && i < 6; ++i) list += (i ? ", " : "") + std::to_string(padded[i]);
    return padded.size() > 6 ? list + ", …" : list;
}

struct Knob {
    const char* key;
    std::function<bool(const Config&, const Config&)> differs;
    std::function<std::string(const Config&, const Config&)> describe;
};

// "name before → after" for the knob that is field, shown by show.
template <typename Field, typename Show>
Knob valued(const char* key, const char* name, Field Config::*field, Show show) {
    return {key, [field](const Config& a, const Config& b) { return a.*field != b.*field; },
            [show, name](const Config& a, const Config& b) { return std::string(name) + " " + show(a) + " → " + show(b); }};
}

// A text: named, not quoted, and whether it was cleared.
Knob texted(const char* key, const char* name, std::string Config::*field) {
    return {key, [field](const Config& a, const Config& b) { return a.*field != b.*field; },
            [field, name](const Config&, const Config& b) {
                return (b.*field).empty() ? std::string(name) + " cleared" : std::string(name);
            }};
}

const std::vector<Knob>& knobs() {
    using C = const Config&;
    static const std::vector<Knob> all{
        valued("d_model", "d_model", &Config::d_model, [](C c) { return std::to_string(c.d_model); }),
        valued("heads", "heads", &Config::heads, [](C c) { return std::to_string(c.heads); }),
        valued("d_k", "d_k", &Config::d_k, [](C c) { return dimension(c.d_k, c.headDimK(), "d_model/heads"); }),
        valued("d_v", "d_v", &Config::d_v, [](C c) { return dimension(c.d_v, c.headDimV(), "d_model/heads"); }),
        valued("kv_heads", "K/V heads", &Config::kv_heads, [](C c) { return dimension(c.kv_heads, c.kvHeads(), "heads"); }),
        texted("text", "text", &Config::text),
        valued("seq_len", "random tokens", &Config::seq_len,
               [](C c) { return c.seq_len > 0 ? std::to_string(c.seq_len) : std::string("off"); }),
        texted("source_text", "source text", &Config::source_text),
        valued("mask", "mask", &Config::mask, [](C c) { return std::string(toString(c.mask)); }),
        valued("padded_keys", "padded keys", &Config::padded_keys, [](C c) { return keys(c.padded_keys); }),
        valued("scale", "1/√d_k scale", &Config::scale, [](C c) { return onOff(c.scale); }),
        valued("temperature", "temperature", &Config::temperature, [](C c) { return number(c.temperature); }),
        valued("init", "initialiser", &Config::init, [](C c) { return std::string(toString(c.init)); }),
        valued("init_sigma", "σ", &Config::init_sigma, [](C c) { return number(c.init_sigma); }),
        valued("seed", "seed", &Config::seed, [](C c) { return std::to_string(c.seed); }),
        valued("bias", "biases", &Config::bias, [](C c) { return onOff(c.bias); }),
        valued("rank_rtol", "rank tolerance", &Config::rank_rtol,
               [](C c) { return c.rank_rtol > 0 ? number(c.rank_rtol) : std::string("NumPy default"); }),
    };
    return all;
}

}  // namespace

std::vector<std::string> changedKnobs(const Config& before, const Config& after) {
    std::vector<std::string> changed;
    for (const Knob& knob : knobs())
        if (knob.differs(before, after)) changed.push_back(knob.key);
    if (changed.empty() && !(before == after)) changed.push_back("other");  // a field no knob names yet
    return changed;
}

std::string describeChange(const Config& before, const Config& after) {
    // Ticking or unticking Lock d_k = d_v = d_model / heads changes d_k and d_v between
    // derived and the same explicit numbers: one change, named as the check box is.
    const auto locked = [](const Config& c) { return c.d_k == 0 && c.d_v == 0; };
    const bool lock_toggled = locked(before) != locked(after) && before.headDimK() == after.headDimK() &&
                              before.headDimV() == after.headDimV();
    std::vector<std::string> parts;
    if (lock_toggled) parts.push_back(std::string(locked(after) ? "lock" : "unlock") + " d_k = d_v = d_model / heads");
    for (const Knob& knob : knobs())
        if (knob.differs(before, after) && !(lock_toggled && (knob.key == std::string("d_k") || knob.key == std::string("d_v"))))
            parts.push_back(knob.describe(before, after));
    if (parts.empty()) return before == after ? std::string() : std::string("settings");
    std::string text = parts[0];
    if (parts.size() >= 2) text += ", " + parts[1];
    if (parts.size() > 2) text += " and " + std::to_string(parts.size() - 2) + " more";
    return text;
}

}  // namespace headscope
