#include "io/SessionFile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "io/BinaryFile.h"
#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"

namespace headscope::io {

namespace {

using nlohmann::json;
constexpr const char* kFormat = "headscope-session";
constexpr int kVersion = 1;
constexpr std::uintmax_t kMaxSessionBytes = 8u << 20;  // texts are at most 1 MiB each

template <typename T>
void read(const json& j, const char* key, T& out) {
    const auto it = j.find(key);
    if (it == j.end()) return;  // missing keys keep their defaults
    try {
        out = it->get<T>();
    } catch (const json::exception&) {
        throw IoError(std::string("session key \"") + key + "\" has the wrong type (" + it->type_name() + ")");
    }
}

int readInt(const json& j, const char* key, int fallback) {
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    if (!it->is_number_integer())
        throw IoError(std::string("session key \"") + key + "\" must be a whole number");
    const auto v = it->get<long long>();
    if (v < -1000000000LL || v > 1000000000LL)
        throw IoError(std::string("session key \"") + key + "\" is out of range");
    return static_cast<int>(v);
}

}  // namespace

namespace {

json configObject(const Config& c) {
    return json{{"format", kFormat},
                {"version", kVersion},
                {"d_model", c.d_model},
                {"heads", c.heads},
                {"d_k", c.d_k},
                {"d_v", c.d_v},
                {"kv_heads", c.kv_heads},
                {"bias", c.bias},
                {"text", c.text},
                {"seq_len", c.seq_len},
                {"source_text", c.source_text},
                {"mask", toString(c.mask)},
                {"padded_keys", c.padded_keys},
                {"scale", c.scale},
                {"temperature", c.temperature},
                {"seed", c.seed},
                {"init", toString(c.init)},
                {"init_sigma", c.init_sigma},
                {"rank_rtol", c.rank_rtol}};
}

void readView(const json& j, ViewSettings& v) {
    if (!j.is_object()) throw IoError("session key \"view\" must be an object");
    static const char* known[] = {"show_logits", "shared_scale", "cell_numbers", "token_positions", "font_scale"};
    for (const auto& item : j.items())
        if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return item.key() == k; }) ==
            std::end(known))
            throw IoError("unknown view key " + quote(item.key()));
    const auto flag = [&](const char* key, std::optional<bool>& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_boolean()) throw IoError(std::string("view key \"") + key + "\" must be true or false");
        out = j[key].get<bool>();
    };
    flag("show_logits", v.show_logits);
    flag("shared_scale", v.shared_scale);
    flag("cell_numbers", v.cell_numbers);
    flag("token_positions", v.token_positions);
    if (j.contains("font_scale")) {
        if (!j["font_scale"].is_number()) throw IoError("view key \"font_scale\" must be a number");
        const double f = j["font_scale"].get<double>();
        if (!(f >= 0.5 && f <= 3.0)) throw IoError("view key \"font_scale\" must be between 0.5 and 3");
        v.font_scale = f;
    }
}

// Every key present in j overrides base; with require_header, "format" and "version" must be there.
SessionData applyKeys(const json& j, SessionData base, bool require_header) {
    if (!j.is_object()) throw IoError("a session file must hold a JSON object");
    const auto format = j.find("format");
    if (require_header || format != j.end()) {
        if (format == j.end() || !format->is_string() || format->get<std::string>() != kFormat)
            throw IoError(std::string("not a HeadScope session (\"format\" must be \"") + kFormat + "\")");
    }
    if (require_header || j.contains("version")) {
        if (readInt(j, "version", 0) != kVersion)
            throw IoError("unsupported session version (this HeadScope reads version 1)");
    }

    static const char* known[] = {"format", "version", "d_model", "heads", "d_k", "d_v", "kv_heads",
                                  "bias", "text", "seq_len", "source_text", "mask", "padded_keys", "scale",
                                  "temperature", "seed", "init", "init_sigma", "rank_rtol", "view"};
    for (const auto& item : j.items()) {
        if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return item.key() == k; }) ==
            std::end(known))
            throw IoError("unknown session key " + quote(item.key()));
    }

    Config& c = base.config;
    c.d_model = readInt(j, "d_model", c.d_model);
    c.heads = readInt(j, "heads", c.heads);
    c.d_k = readInt(j, "d_k", c.d_k);
    c.d_v = readInt(j, "d_v", c.d_v);
    c.kv_heads = readInt(j, "kv_heads", c.kv_heads);
    c.seq_len = readInt(j, "seq_len", c.seq_len);
    read(j, "bias", c.bias);
    read(j, "text", c.text);
    read(j, "source_text", c.source_text);
    read(j, "scale", c.scale);
    read(j, "temperature", c.temperature);
    read(j, "init_sigma", c.init_sigma);
    read(j, "rank_rtol", c.rank_rtol);
    if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned() && !(j["seed"].is_number_integer() && j["seed"].get<long long>() >= 0))
            throw IoError("session key \"seed\" must be a whole number >= 0");
        c.seed = j["seed"].get<std::uint64_t>();
    }
    if (j.contains("padded_keys")) {
        if (!j["padded_keys"].is_array() || j["padded_keys"].size() > 100000)
            throw IoError("session key \"padded_keys\" must be a list of key positions");
        c.padded_keys.clear();
        for (const auto& k : j["padded_keys"]) {
            if (!k.is_number_integer()) throw IoError("session key \"padded_keys\" must hold whole numbers");
            c.padded_keys.push_back(static_cast<int>(std::clamp<long long>(k.get<long long>(), -1, 1 << 30)));
        }
    }
    std::string mask = toString(c.mask), init = toString(c.init);
    read(j, "mask", mask);
    read(j, "init", init);
    const std::optional<MaskKind> mask_kind = maskKindFromString(mask);
    if (!mask_kind) throw IoError("session key \"mask\" must be \"none\" or \"causal\", not " + quote(mask));
    const std::optional<InitKind> init_kind = initKindFromString(init);
    if (!init_kind) throw IoError("session key \"init\" must be \"xavier\", \"normal\" or \"identity\", not " + quote(init));
    c.mask = *mask_kind;
    c.init = *init_kind;
    if (j.contains("view")) readView(j["view"], base.view);
    return base;
}

}  // namespace

std::string configToJson(const Config& c) { return configObject(c).dump(2) + "\n"; }

Config configFromJson(const std::string& text) { return sessionFromJson(text).config; }

std::string sessionToJson(const SessionData& session) {
    json j = configObject(session.config);
    if (!session.view.empty()) {
        json v = json::object();
        const ViewSettings& s = session.view;
        if (s.show_logits) v["show_logits"] = *s.show_logits;
        if (s.shared_scale) v["shared_scale"] = *s.shared_scale;
        if (s.cell_numbers) v["cell_numbers"] = *s.cell_numbers;
        if (s.token_positions) v["token_positions"] = *s.token_positions;
        if (s.font_scale) v["font_scale"] = *s.font_scale;
        j["view"] = v;
    }
    return j.dump(2) + "\n";
}

SessionData sessionFromJson(const std::string& text) {
    return applyKeys(parseJsonText(text, "the session"), SessionData{}, true);
}

SessionData applySessionKeys(const SessionData& base, const std::string& json_object) {
    return applyKeys(parseJsonText(json_object, "the settings"), base, false);
}

void saveSession(const std::string& path, const Config& config) { saveSession(path, SessionData{config, {}}); }

Config loadSession(const std::string& path) { return loadSessionData(path).config; }

void saveSession(const std::string& path, const SessionData& session) {
    // Write to a temporary file and rename, so a failed save never destroys the old file.
    const std::string tmp = path + ".tmp";
    const auto fail = [&](const char* why) {
        throw IoError("cannot write session file " + quotePath(path) + ": " + why);
    };
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) fail("its folder cannot be written to");
        out << sessionToJson(session);
        if (!out.flush()) fail("writing failed (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        fail("the finished file could not replace the old one");
    }
}

SessionData loadSessionData(const std::string& path) {
    try {
        std::uint64_t size = 0;
        std::ifstream in = openForReading(path, size);
        if (size > kMaxSessionBytes)
            throw IoError("it is " + std::to_string(size >> 20) + " MiB, larger than the 8 MiB a session can be");
        std::string text(size, '\0');
        readAt(in, 0, text.data(), text.size());
        return sessionFromJson(text);
    } catch (const IoError& e) {
        throw IoError("cannot read session file " + quotePath(path) + ": " + e.what());
    } catch (const std::bad_alloc&) {
        throw IoError("cannot read session file " + quotePath(path) + ": not enough memory");
    }
}

}  // namespace headscope::io
