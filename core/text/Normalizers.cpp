// tokenizer.json normalizers: Sequence, NFC, NFD, NFKC, NFKD (utf8proc), Lowercase,
// StripAccents, Strip, Prepend, Replace; null.
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <utf8proc.h>

#include "io/Quote.h"
#include "text/Regex.h"
#include "text/TokenizerParts.h"
#include "text/Utf8.h"

namespace headscope::text {

std::string stringField(const nlohmann::json& spec, const char* key, const std::string& fallback) {
    const auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return fallback;
    if (!it->is_string()) throw std::invalid_argument(std::string("its \"") + key + "\" is not a string");
    return it->get<std::string>();
}

bool boolField(const nlohmann::json& spec, const char* key, bool fallback) {
    const auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw std::invalid_argument(std::string("its \"") + key + "\" is not true or false");
    return it->get<bool>();
}

std::string typeOf(const nlohmann::json& spec, const std::string& what) {
    if (!spec.is_object()) throw std::invalid_argument("the " + what + " is not a JSON object");
    const auto it = spec.find("type");
    if (it == spec.end() || !it->is_string()) throw std::invalid_argument("the " + what + " has no \"type\"");
    return it->get<std::string>();
}

namespace {

// Calls f(code point, its UTF-8) for each character of valid UTF-8 text.
template <class F>
void forEachCharacter(std::string_view text, F f) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(text, i));
        f(utf8CodePoint(text, i, length), text.substr(i, length));
        i += length;
    }
}

std::string unicodeMap(const std::string& text, int options) {
    utf8proc_uint8_t* mapped = nullptr;
    const utf8proc_ssize_t length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                                 static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                                                 static_cast<utf8proc_option_t>(options));
    if (length < 0) throw std::invalid_argument(std::string("Unicode normalisation failed: ") + utf8proc_errmsg(length));
    std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length));
    std::free(mapped);
    return out;
}

// The library's BertNormalizer (normalizers/bert.rs), in its order: clean_text drops NUL, U+FFFD
// and control characters (tab, newline and carriage return are whitespace) and turns every
// whitespace into a space; handle_chinese_chars puts spaces around each CJK ideograph;
// strip_accents (null: as lowercase) is NFD without the non-spacing marks; then lowercase.
bool isBertControl(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    return category == UTF8PROC_CATEGORY_CC || category == UTF8PROC_CATEGORY_CF || category == UTF8PROC_CATEGORY_CN ||
           category == UTF8PROC_CATEGORY_CO || category == UTF8PROC_CATEGORY_CS;
}

bool isCjkIdeograph(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

Normalizer bertNormalizer(const nlohmann::json& spec, const Normalizer& strip_accents, const Normalizer& lowercase) {
    const bool clean = boolField(spec, "clean_text", true), chinese = boolField(spec, "handle_chinese_chars", true);
    const bool lower = boolField(spec, "lowercase", true);
    const auto accents = spec.find("strip_accents");
    const bool strip = accents == spec.end() || accents->is_null() ? lower : accents->is_boolean() && accents->get<bool>();
    if (accents != spec.end() && !accents->is_null() && !accents->is_boolean())
        throw std::invalid_argument("the BertNormalizer's \"strip_accents\" is neither true, false nor null");
    return [=](std::string text) {
        if (clean || chinese) {
            std::string out;
            forEachCharacter(text, [&](char32_t c, std::string_view bytes) {
                if (clean && (c == 0 || c == 0xFFFD || isBertControl(c))) return;
                if (clean && isWhitespace(c)) out += ' ';
                else if (chinese && isCjkIdeograph(c)) out.append(" ").append(bytes).append(" ");
                else out += bytes;
            });
            text = std::move(out);
        }
        if (strip) text = strip_accents(unicodeMap(text, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE));
        if (lower) text = lowercase(std::move(text));
        return text;
    };
}

// A Replace's or Split's pattern: {"String": "..."} or {"Regex": "..."}.
struct Pattern {
    std::string literal;
    std::shared_ptr<const Regex> regex;
};

Pattern patternOf(const nlohmann::json& spec) {
    const auto it = spec.find("pattern");
    if (it == spec.end() || !it->is_object()) throw std::invalid_argument("its \"pattern\" is not {\"String\": ...} or {\"Regex\": ...}");
    if (const auto s = it->find("String"); s != it->end() && s->is_string()) return {s->get<std::string>(), nullptr};
    if (const auto r = it->find("Regex"); r != it->end() && r->is_string()) {
        try {
            return {"", std::make_shared<const Regex>(r->get<std::string>())};
        } catch (const std::invalid_argument& error) {
            throw std::invalid_argument("its pattern " + io::quote(r->get<std::string>()) + " is not a valid regular expression (" +
                                        error.what() + ")");
        }
    }
    throw std::invalid_argument("its \"pattern\" is not {\"String\": ...} or {\"Regex\": ...}");
}

Normalizer replaceNormalizer(const nlohmann::json& spec) {
    const Pattern pattern = patternOf(spec);
    const std::string content = stringField(spec, "content", "");
    return [pattern, content](std::string text) {
        std::string out;
        std::size_t from = 0;
        if (pattern.regex) {
            for (const auto& [begin, end] : pattern.regex->findAll(text)) {
                out.append(text, from, begin - from).append(content);
                from = end;
            }
        } else if (!pattern.literal.empty()) {
            for (std::size_t at; (at = text.find(pattern.literal, from)) != std::string::npos; from = at + pattern.literal.size())
                out.append(text, from, at - from).append(content);
        }
        return out.append(text, from, std::string::npos);
    };
}

}  // namespace

SpanFinder patternFinder(const nlohmann::json& spec) {
    const Pattern pattern = patternOf(spec);
    return [pattern](const std::string& text) {
        if (pattern.regex) return pattern.regex->findAll(text);
        std::vector<std::pair<std::size_t, std::size_t>> spans;
        if (pattern.literal.empty()) return spans;
        for (std::size_t at = 0; (at = text.find(pattern.literal, at)) != std::string::npos; at += pattern.literal.size())
            spans.emplace_back(at, at + pattern.literal.size());
        return spans;
    };
}

Normalizer makeReplace(const nlohmann::json& spec) { return replaceNormalizer(spec); }

Normalizer makeNormalizer(const nlohmann::json& spec) {
    if (spec.is_null()) return {};
    const std::string type = typeOf(spec, "normalizer");
    if (type == "Sequence") {
        const auto it = spec.find("normalizers");
        if (it == spec.end() || !it->is_array()) throw std::invalid_argument("the normalizer Sequence has no \"normalizers\" list");
        std::vector<Normalizer> steps;
        for (const auto& step : *it)
            if (Normalizer normalizer = makeNormalizer(step)) steps.push_back(std::move(normalizer));
        return [steps](std::string text) {
            for (const auto& step : steps) text = step(std::move(text));
            return text;
        };
    }
    const auto unicode = [](int options) { return [options](std::string text) { return unicodeMap(text, options); }; };
    if (type == "NFC") return unicode(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (type == "NFD") return unicode(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
    if (type == "NFKC") return unicode(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
    if (type == "NFKD") return unicode(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
    if (type == "Lowercase") {
        return [](std::string text) {
            std::string out;
            forEachCharacter(text, [&](char32_t c, std::string_view) {
                if (c == 0x130) out += "i\u0307";  // the one character whose lower case is two (as Rust's to_lowercase)
                else out += utf8Of(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
            });
            return out;
        };
    }
    if (type == "StripAccents") {  // drops non-spacing marks (after an NFD, the accents)
        return [](std::string text) {
            std::string out;
            forEachCharacter(text, [&](char32_t c, std::string_view bytes) {
                if (utf8proc_category(static_cast<utf8proc_int32_t>(c)) != UTF8PROC_CATEGORY_MN) out += bytes;
            });
            return out;
        };
    }
    if (type == "Strip") {
        const bool left = boolField(spec, "strip_left", true), right = boolField(spec, "strip_right", true);
        return [left, right](std::string text) {
            std::size_t begin = 0, end = text.size();
            if (left)
                while (begin < end) {
                    const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(text, begin));
                    if (!isWhitespace(utf8CodePoint(text, begin, length))) break;
                    begin += length;
                }
            if (right)
                while (end > begin) {
                    std::size_t start = end - 1;
                    while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
                    if (!isWhitespace(utf8CodePoint(text, start, end - start))) break;
                    end = start;
                }
            return text.substr(begin, end - begin);
        };
    }
    if (type == "Prepend") {
        const std::string prefix = stringField(spec, "prepend", "");
        return [prefix](std::string text) { return text.empty() ? text : prefix + text; };
    }
    if (type == "Replace") return replaceNormalizer(spec);
    if (type == "BertNormalizer")
        return bertNormalizer(spec, makeNormalizer({{"type", "StripAccents"}}), makeNormalizer({{"type", "Lowercase"}}));
    throw std::invalid_argument("the normalizer type " + io::quote(type) +
                                " is not supported (supported: Sequence, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, "
                                "Strip, Prepend, Replace, BertNormalizer)");
}

}  // namespace headscope::text
