#include "io/RopeConfig.h"

#include <cmath>
#include <set>

#include "io/Quote.h"

namespace headscope::io::checkpoint {

namespace {

using nlohmann::json;

// Every key a RopeParameters dict may hold (modeling_rope_utils.py, RopeParameters). Those a
// type does not read are ignored as transformers ignores them; any other key is refused.
const std::set<std::string> kRopeKeys = {
    "rope_type", "type", "rope_theta", "partial_rotary_factor", "factor", "original_max_position_embeddings",
    "attention_factor", "beta_fast", "beta_slow", "short_factor", "long_factor", "low_freq_factor",
    "high_freq_factor", "mscale", "mscale_all_dim", "truncate"};

const std::set<std::string> kLayerTypes = {"full_attention", "sliding_attention"};

bool nestedDict(const json& dict) {
    bool nested = dict.is_object() && !dict.empty();
    for (const auto& [name, value] : dict.items()) nested = nested && kLayerTypes.count(name) && value.is_object();
    return nested;
}

// The one settings dict: "rope_scaling" wins over "rope_parameters" (transformers 5's flat
// path); of a dict keyed by layer type (Gemma 3's nested form), the entry of `layer_type`, or,
// without one, the entry all agree on (one rotation serves every layer of the family).
json settingsDict(const ConfigFields& f, const std::string& layer_type) {
    const json& config = f.object();
    const char* key = f.has("rope_scaling") && !ropePerLayerType(f) ? "rope_scaling"
                      : f.has("rope_parameters")                    ? "rope_parameters"
                                                                    : nullptr;
    if (!key) return json::object();
    const json& dict = config[key];
    if (!dict.is_object()) f.fail(std::string("\"") + key + "\" is not an object");
    if (!nestedDict(dict)) return dict;
    if (!layer_type.empty()) {
        if (!dict.contains(layer_type)) f.fail(std::string("\"") + key + "\" has no entry for the layer type " + quote(layer_type, 40));
        return dict[layer_type];
    }
    const json& first = dict.begin().value();
    for (const auto& [name, value] : dict.items())
        if (value != first)
            f.fail(std::string("\"") + key + "\" gives the layer types different rotations (" + quote(name, 40) +
                   " differs), which this family does not have");
    return first;
}

}  // namespace

bool ropePerLayerType(const ConfigFields& f) { return f.has("rope_parameters") && nestedDict(f.object()["rope_parameters"]); }

RopeSettings readRope(const ConfigFields& f, const RopeDefaults& defaults, const std::string& layer_type) {
    const json dict = settingsDict(f, layer_type);
    const std::string where = f.has("rope_scaling") && !ropePerLayerType(f) ? "\"rope_scaling\"" : "\"rope_parameters\"";
    for (const auto& [name, value] : dict.items())
        if (!kRopeKeys.count(name)) f.fail(where + " holds " + quote(name, 40) + ", which is not understood");
    const auto inDict = [&](const char* key) { return dict.contains(key) && !dict[key].is_null(); };
    const auto fail = [&](const std::string& why) { f.fail(why); };
    const auto number = [&](const char* key, double low, double high) {
        const json& v = dict[key];
        if (!v.is_number()) fail(where + "'s " + quote(key, 40) + " is not a number");
        const double x = v.get<double>();
        if (!(x > low && x < high))
            fail(where + "'s " + quote(key, 40) + " " + v.dump() + " is not between " + json(low).dump() + " and " +
                 json(high).dump());
        return x;
    };
    // A context length: a whole number of positions (8192, or 8192.0 as some writers give it).
    const auto positions = [&](const char* key) {
        const double x = number(key, 0, 1 << 24);
        if (x != std::floor(x)) fail(where + "'s " + quote(key, 40) + " " + dict[key].dump() + " is not a whole number");
        return static_cast<int>(x);
    };
    RopeSettings s;
    const auto required = [&](const char* key, double low, double high) {
        if (!inDict(key)) fail(where + " of rope_type " + quote(s.type, 40) + " has no " + quote(key, 40));
        return number(key, low, high);
    };
    if (inDict("rope_type") || inDict("type")) {
        const json& t = inDict("rope_type") ? dict["rope_type"] : dict["type"];
        if (!t.is_string()) fail(where + "'s rope_type is not a string");
        s.type = t.get<std::string>();
    }
    // theta: the dict, then the top-level keys (GPT-NeoX's rotary_emb_base first), then the default.
    if (inDict("rope_theta"))
        s.theta = number("rope_theta", 0, 1e12);
    else if (defaults.neox_keys && f.has("rotary_emb_base"))
        s.theta = f.number("rotary_emb_base", 0, 1e12);
    else
        s.theta = f.number("rope_theta", 0, 1e12, defaults.theta);
    if (inDict("partial_rotary_factor"))
        s.partial_rotary_factor = number("partial_rotary_factor", 0, 1.000001);
    else if (f.has("partial_rotary_factor"))
        s.partial_rotary_factor = f.number("partial_rotary_factor", 0, 1.000001);
    else if (defaults.neox_keys)
        s.partial_rotary_factor = f.number("rotary_pct", 0, 1.000001, defaults.partial_rotary_factor);
    else
        s.partial_rotary_factor = defaults.partial_rotary_factor;
    if (!defaults.partial_allowed && s.partial_rotary_factor != 1)
        fail("partial_rotary_factor " + json(s.partial_rotary_factor).dump() +
             " is not supported for this family (it rotates whole heads)");

    if (defaults.longrope_allowed && (s.type == "su" || s.type == "yarn")) s.type = "longrope";  // Phi-3's old names
    if (s.type == "longrope" && defaults.longrope_allowed) {
        const auto factors = [&](const char* key) {
            if (!inDict(key) || !dict[key].is_array()) fail(where + " of rope_type 'longrope' has no list " + quote(key, 40));
            std::vector<double> values;
            for (const json& v : dict[key]) {
                if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() < 1e6))
                    fail(where + "'s " + quote(key, 40) + " holds " + quote(v.dump(), 40) + ", not a positive number");
                values.push_back(v.get<double>());
            }
            return values;
        };
        s.short_factor = factors("short_factor");
        s.long_factor = factors("long_factor");
        const int max_positions = f.integer("max_position_embeddings", 1, 1 << 24, 4096);
        s.original_max_positions =
            inDict("original_max_position_embeddings")
                ? positions("original_max_position_embeddings")
                : f.integer("original_max_position_embeddings", 1, 1 << 24, max_positions);
        // _compute_longrope_parameters: factor from the two contexts when absent; the attention
        // factor sqrt(1 + ln(factor) / ln(original)) when absent, 1 for factor <= 1.
        s.factor = inDict("factor") ? number("factor", 0, 1e6) : double(max_positions) / s.original_max_positions;
        if (!inDict("attention_factor") && s.factor > 1 && s.original_max_positions == 1)
            fail(where + "'s original_max_position_embeddings 1 leaves longrope's attention factor undefined "
                 "(ln 1 = 0 divides it); give \"attention_factor\" or a longer original context");
        s.attention_factor = inDict("attention_factor") ? number("attention_factor", 0, 1e6)
                             : s.factor <= 1 ? 1.0
                                             : std::sqrt(1 + std::log(s.factor) / std::log(double(s.original_max_positions)));
    } else if (s.type == "linear") {
        s.factor = required("factor", 0, 1e6);
    } else if (s.type == "llama3") {
        s.factor = required("factor", 0, 1e6);
        s.low_freq_factor = required("low_freq_factor", 0, 1e6);
        s.high_freq_factor = required("high_freq_factor", 0, 1e6);
        if (!inDict("original_max_position_embeddings"))
            fail(where + " of rope_type 'llama3' has no 'original_max_position_embeddings'");
        s.original_max_positions = positions("original_max_position_embeddings");
        if (!(s.high_freq_factor > s.low_freq_factor))
            fail(where + "'s high_freq_factor must exceed its low_freq_factor");
    } else if (s.type != "default") {
        fail("rope_type " + quote(s.type, 40) + " (in " + where + ") is not supported (supported: default, linear, llama3" +
             (defaults.longrope_allowed ? ", longrope)" : ")"));
    }
    return s;
}

void applyRope(const RopeSettings& s, model::ModelConfig& c, const ConfigFields& f) {
    c.rope_theta = s.theta;
    c.rotary_dims = static_cast<int>(c.headDim() * s.partial_rotary_factor);  // int(head_dim * factor), as HF
    c.rotary_dims -= c.rotary_dims % 2;
    c.rope_scaling = s.type == "default" ? "" : s.type;
    c.rope_factor = s.factor;
    c.rope_low_freq_factor = s.low_freq_factor;
    c.rope_high_freq_factor = s.high_freq_factor;
    if (s.original_max_positions > 0) c.rope_original_max_positions = s.original_max_positions;
    c.rope_short_factor = s.short_factor;
    c.rope_long_factor = s.long_factor;
    c.rope_attention_scaling = static_cast<float>(s.attention_factor);
    const std::size_t pairs = std::size_t(c.rotary_dims / 2);
    if (s.type == "longrope" && (s.short_factor.size() != pairs || s.long_factor.size() != pairs))
        f.fail("longrope's short_factor and long_factor hold " + std::to_string(s.short_factor.size()) + " and " +
               std::to_string(s.long_factor.size()) + " numbers; the rotated dimensions need one per pair, " +
               std::to_string(pairs));
}

std::string readDtype(const ConfigFields& f) {
    if (f.has("dtype")) return f.string("dtype");
    if (f.has("torch_dtype")) return f.string("torch_dtype");
    return "";
}

void readLayerTypes(const ConfigFields& f, const std::vector<bool>& sliding_by_default, model::ModelConfig& c) {
    c.sliding_layers = sliding_by_default;
    if (!f.has("layer_types")) return;
    const json& types = f.object()["layer_types"];
    if (!types.is_array() || types.size() != std::size_t(c.n_layer))
        f.fail("\"layer_types\" is not a list of " + std::to_string(c.n_layer) + " layer types (one per layer)");
    c.sliding_layers.assign(std::size_t(c.n_layer), false);
    for (std::size_t l = 0; l < types.size(); ++l) {
        if (!types[l].is_string() || !kLayerTypes.count(types[l].get<std::string>()))
            f.fail("\"layer_types\" entry " + std::to_string(l) + " is " + quote(types[l].dump(), 40) +
                   " (supported: full_attention, sliding_attention)");
        c.sliding_layers[l] = types[l] == "sliding_attention";
    }
}

}  // namespace headscope::io::checkpoint
