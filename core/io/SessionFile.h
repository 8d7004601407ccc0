#pragma once
// Session files (.headscope.json): the whole Config, texts and seed included, so that
// reopening reproduces the same numbers exactly. Unknown keys are errors (a typo must
// not be silently ignored); missing keys keep their defaults.

#include <string>

#include "Config.h"

namespace headscope::io {

std::string configToJson(const Config& config);   // pretty-printed JSON object
Config configFromJson(const std::string& json);   // throws IoError with one clear sentence

void saveSession(const std::string& path, const Config& config);  // throws IoError
Config loadSession(const std::string& path);                      // throws IoError

}  // namespace headscope::io
