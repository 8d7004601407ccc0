#pragma once
// Text from a file (a key, a dtype, a tensor name) or a path, quoted for a one-line
// message: shortened to a bounded length and escaped, so that a 1 MB header key, a
// newline, a control character or invalid UTF-8 in a hostile file cannot make the
// message long, multi-line or garbled. The one helper every reader uses.

#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace headscope::io {

namespace quote_detail {

// Length of the valid UTF-8 sequence at text[i] (2 to 4) whose code point is printable
// (not a C1 control, not a line/paragraph separator, not a bidirectional override), or 0.
inline std::size_t printableUtf8Length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length;
    char32_t code;
    if (lead >= 0xC2 && lead <= 0xDF) length = 2, code = lead & 0x1F;
    else if (lead >= 0xE0 && lead <= 0xEF) length = 3, code = lead & 0x0F;
    else if (lead >= 0xF0 && lead <= 0xF4) length = 4, code = lead & 0x07;
    else return 0;
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(i + k) & 0x3F);
    }
    const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;  // overlong, surrogate
    if (code < 0xA0 || code == 0x2028 || code == 0x2029 || (code >= 0x202A && code <= 0x202E) ||
        (code >= 0x2066 && code <= 0x2069) || code == 0xFEFF)
        return 0;
    return length;
}

inline void appendEscaped(std::string& out, unsigned char c) {
    static const char digits[] = "0123456789abcdef";
    switch (c) {
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        case '\\': out += "\\\\"; return;
        case '\'': out += "\\'"; return;
        default: break;
    }
    if (c >= 0x20 && c < 0x7F) {
        out += static_cast<char>(c);
    } else {
        out += "\\x";
        out += digits[c >> 4];
        out += digits[c & 0xF];
    }
}

// The escaped form of text[begin, end), at most `budget` source characters of it;
// returns the index where it stopped.
inline std::size_t appendEscapedRange(std::string& out, std::string_view text, std::size_t begin, std::size_t end,
                                      std::size_t budget) {
    std::size_t i = begin;
    for (std::size_t used = 0; i < end && used < budget; ++used) {
        if (const std::size_t n = printableUtf8Length(text, i); n > 0 && i + n <= end) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            appendEscaped(out, static_cast<unsigned char>(text[i]));
            ++i;
        }
    }
    return i;
}

}  // namespace quote_detail

// 'text' in single quotes; at most max_chars characters of it, then "..." (the message
// says how long the whole text was). Printable ASCII and printable UTF-8 stay as they
// are; quotes, backslashes, control characters and invalid bytes become \' \\ \n \xNN.
inline std::string quote(std::string_view text, std::size_t max_chars = 80) {
    std::string out = "'";
    const std::size_t stop = quote_detail::appendEscapedRange(out, text, 0, text.size(), max_chars);
    out += "'";
    if (stop < text.size()) out.insert(out.size() - 1, "...");
    if (stop < text.size()) out += " (" + std::to_string(text.size()) + " bytes)";
    return out;
}

// A path for a message: quoted and escaped like quote(), but a long path keeps its
// beginning and its end (the file name), with "..." in between.
inline std::string quotePath(std::string_view path, std::size_t max_chars = 160) {
    if (path.size() <= max_chars) return quote(path, max_chars);
    std::string out = "'";
    quote_detail::appendEscapedRange(out, path, 0, path.size(), max_chars / 2);
    out += "...";
    // The tail: step back to the start of a UTF-8 sequence so nothing is cut in half.
    std::size_t tail = path.size() - max_chars / 2;
    while (tail < path.size() && (static_cast<unsigned char>(path[tail]) & 0xC0) == 0x80) ++tail;
    quote_detail::appendEscapedRange(out, path, tail, path.size(), max_chars);
    return out + "'";
}

// A number in a message, as printf's %g writes it (1e+06, 0.5).
inline std::string shortNumber(double value) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%g", value);
    return text.data();
}

}  // namespace headscope::io
