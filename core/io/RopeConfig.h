#pragma once
// config.json's rotary and per-layer attention settings, in both forms Hugging Face writes:
//   transformers 5:  "rope_parameters": {"rope_type", "rope_theta", "partial_rotary_factor",
//                    "factor", ...}, "layer_types", "dtype"
//   transformers 4:  top-level "rope_theta", "rope_scaling" {"type" or "rope_type", ...},
//                    "partial_rotary_factor", GPT-NeoX's "rotary_pct" and "rotary_emb_base",
//                    "torch_dtype"
// with transformers' order (modeling_rope_utils.py, RotaryEmbeddingConfigMixin
// .convert_rope_params_to_dict; ../shared/reference/hf-families.md section 7): the settings
// dict ("rope_scaling" when present, else "rope_parameters") first, then the legacy top-level
// keys, then the family's defaults. A key that changes the rotation is understood or refused
// in one sentence naming it; nothing is silently defaulted.
// For core/ sources only: it includes nlohmann/json through io/CheckpointFiles.h.

#include <string>
#include <vector>

#include "io/CheckpointFiles.h"
#include "model/Model.h"

namespace headscope::io::checkpoint {

struct RopeDefaults {
    double theta = 10000;
    double partial_rotary_factor = 1;
    bool neox_keys = false;        // GPT-NeoX: "rotary_pct" and "rotary_emb_base" are read
    bool partial_allowed = false;  // the family rotates part of a head (GPT-NeoX, Phi-3); else 1 only
    bool longrope_allowed = false; // Phi-3: "longrope" (and its old names "su" and "yarn")
};

struct RopeSettings {
    std::string type = "default";  // default, linear or llama3
    double theta = 10000;
    double partial_rotary_factor = 1;
    double factor = 1;                        // linear, llama3
    double low_freq_factor = 1, high_freq_factor = 4;  // llama3
    int original_max_positions = 0;           // llama3, longrope
    std::vector<double> short_factor, long_factor;  // longrope
    double attention_factor = 1;                    // longrope: cos and sin scaled by it
};

// The rotary settings of one config.json. IoError (through f.fail) for a rope_type other than
// default, linear, llama3 (and longrope where allowed), a key of the settings dict that is not
// understood, a settings dict given per layer type with different entries, and values out of
// range. `layer_type` ("full_attention", "sliding_attention") picks its entry of a dict given per
// layer type (transformers 5's nested form, Gemma 3); "" requires the entries to agree.
RopeSettings readRope(const ConfigFields& f, const RopeDefaults& defaults, const std::string& layer_type = "");

// True when config.json's rope_parameters is given per layer type (the nested form).
bool ropePerLayerType(const ConfigFields& f);

// Sets c.rope_theta, c.rotary_dims (int(head_dim * partial_rotary_factor), even, as
// transformers' int(head_dim * factor)) and c.rope_scaling with its parameters; for longrope,
// checks a factor per rotated pair (IoError through f.fail).
void applyRope(const RopeSettings& s, model::ModelConfig& c, const ConfigFields& f);

// config.json's "dtype" (transformers 5), else "torch_dtype" (4); "" when neither. IoError for a
// value that is not a string.
std::string readDtype(const ConfigFields& f);

// Which layers attend in a sliding window (c.sliding_layers), from "layer_types" when present
// (each "full_attention" or "sliding_attention", n_layer of them), else `sliding_by_default`
// (one per layer). IoError for any other layer type or a list of the wrong length.
void readLayerTypes(const ConfigFields& f, const std::vector<bool>& sliding_by_default, model::ModelConfig& c);

}  // namespace headscope::io::checkpoint
