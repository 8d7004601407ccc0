#pragma once
// Parsing JSON from untrusted files (safetensors headers, session files, model configs):
// nesting bounded before the parser sees the text (a file of a million '[' would
// otherwise take seconds and hundreds of MB), and errors in the program's own words
// with the byte where the text stops being JSON, never the library's internals.
// For core/ sources only: it includes nlohmann/json, which is a private dependency.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/IoError.h"

namespace headscope::io {

constexpr int kMaxJsonDepth = 64;

// IoError("<what> nests JSON more than 64 levels deep") when brackets outside strings
// nest deeper than max_depth. Linear time, constant memory.
inline void checkJsonNesting(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                throw IoError(what + " nests JSON more than " + std::to_string(max_depth) + " levels deep");
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
}

// The parsed text, or IoError("<what> is not valid JSON (...)") saying where and why in
// plain words. `what` names the text: "its header", "the session".
inline nlohmann::json parseJsonText(std::string_view text, const std::string& what) {
    checkJsonNesting(text, what);
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& error) {
        const std::size_t byte = error.byte;
        if (byte > text.size())
            throw IoError(what + " is not valid JSON (it ends early, after " + std::to_string(text.size()) + " bytes)");
        throw IoError(what + " is not valid JSON (error at byte " + std::to_string(byte) + " of " +
                      std::to_string(text.size()) + ")");
    } catch (const nlohmann::json::out_of_range&) {
        throw IoError(what + " is not valid JSON (a number is too large)");
    } catch (const nlohmann::json::exception&) {
        throw IoError(what + " is not valid JSON");
    }
}

}  // namespace headscope::io
