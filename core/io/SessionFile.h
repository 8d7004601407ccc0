#pragma once
// Session files (.headscope.json): the whole Config, texts and seed included, so that
// reopening reproduces the same numbers exactly. Unknown keys are errors (a typo must
// not be silently ignored); missing keys keep their defaults.

#include <optional>
#include <string>

#include "Config.h"

namespace headscope::io {

// How the views draw (the GUI's ViewOptions, kept here without Qt). Optional key "view" of a
// session file: {"show_logits": false, "shared_scale": true, "font_scale": 1, "cell_numbers": false}.
// Files without it (version 1 as first written) still load; absent keys stay unset.
struct ViewSettings {
    std::optional<bool> show_logits, shared_scale, cell_numbers, token_positions;
    std::optional<double> font_scale;
    bool empty() const { return !show_logits && !shared_scale && !cell_numbers && !token_positions && !font_scale; }
    bool operator==(const ViewSettings&) const = default;
};

struct SessionData {
    Config config;
    ViewSettings view;
};

std::string configToJson(const Config& config);   // pretty-printed JSON object
Config configFromJson(const std::string& json);   // throws IoError with one clear sentence

void saveSession(const std::string& path, const Config& config);  // throws IoError
Config loadSession(const std::string& path);                      // throws IoError

// The same with the view settings (written under "view" when any is set).
std::string sessionToJson(const SessionData& session);
SessionData sessionFromJson(const std::string& json);             // throws IoError
void saveSession(const std::string& path, const SessionData& session);  // throws IoError
SessionData loadSessionData(const std::string& path);             // throws IoError

// A JSON object holding any subset of the session keys (no "format" needed; "view" allowed),
// applied over `base`: what presets and lesson steps carry. Unknown keys are errors.
SessionData applySessionKeys(const SessionData& base, const std::string& json_object);

}  // namespace headscope::io
