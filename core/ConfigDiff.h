#pragma once
// What changed between two configurations, in the controls' words: the name of an undo step
// ("heads 8 → 12", "mask none → causal", "text"), and which knobs changed, so that the steps
// of one slider drag or of one typed word can be merged into one.

#include <string>
#include <vector>

#include "Config.h"

namespace headscope {

// The knobs whose values differ, in the order the controls show them ("d_model", "heads",
// "d_k", "d_v", "kv_heads", "text", "seq_len", "source_text", "mask", "padded_keys", "scale",
// "temperature", "init", "init_sigma", "seed", "bias", "rank_rtol"); empty when equal, and
// "other" for a difference no knob names.
std::vector<std::string> changedKnobs(const Config& before, const Config& after);

// "heads 8 → 12"; two changes joined ("d_model 64 → 128, heads 8 → 16"); more than two: the
// first two and how many more. Texts are named, not quoted ("text", "source text"). Empty
// when nothing changed, "settings" for a difference no knob names.
std::string describeChange(const Config& before, const Config& after);

}  // namespace headscope
