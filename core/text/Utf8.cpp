#include "text/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "text/Tokenizer.h"

namespace headscope::text {

std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) return 1;
    std::size_t length;
    std::uint32_t code;
    if (b0 >= 0xC2 && b0 <= 0xDF) length = 2, code = b0 & 0x1F;
    else if (b0 >= 0xE0 && b0 <= 0xEF) length = 3, code = b0 & 0x0F;
    else if (b0 >= 0xF0 && b0 <= 0xF4) length = 4, code = b0 & 0x07;
    else return 0;  // continuation byte, overlong lead C0/C1, or F5..FF
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) return 0;  // overlong, surrogate
    if (length == 4 && (code < 0x10000 || code > 0x10FFFF)) return 0;
    return length;
}

std::optional<std::size_t> invalidUtf8Offset(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8SequenceLength(text, i);
        if (length == 0) return i;
        i += length;
    }
    return std::nullopt;
}

void requireValidUtf8(std::string_view text) {
    if (const auto bad = invalidUtf8Offset(text))
        throw TokenizerError("the text is not valid UTF-8 (byte " + hexByte(static_cast<unsigned char>(text[*bad])).substr(2) +
                             " at offset " + std::to_string(*bad) + ")");
}

char32_t utf8CodePoint(std::string_view text, std::size_t i, std::size_t length) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (length <= 1) return b0;
    char32_t code = b0 & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    return code;
}

std::string utf8Of(char32_t c) {
    std::string out;
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
    return out;
}

std::string hexByte(unsigned char b) {
    char text[8];
    std::snprintf(text, sizeof text, "\\x%02X", b);
    return text;
}

std::string replaceInvalidBytes(std::string_view bytes) {
    std::string text;
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t length = utf8SequenceLength(bytes, i);
        if (length == 0) {
            text += "\xEF\xBF\xBD";  // U+FFFD
            ++i;
        } else {
            text.append(bytes, i, length);
            i += length;
        }
    }
    return text;
}

std::string replaceInvalidLossy(std::string_view bytes) {
    std::string text;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    for (std::size_t i = 0; i < bytes.size();) {
        if (const std::size_t length = utf8SequenceLength(bytes, i)) {
            text.append(bytes, i, length);
            i += length;
            continue;
        }
        // The longest prefix of a valid sequence starting here (at least the lead byte).
        const unsigned char b0 = byte(i);
        std::size_t want = 0;
        unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
        if (b0 >= 0xC2 && b0 <= 0xDF) want = 2;
        else if (b0 >= 0xE0 && b0 <= 0xEF) want = 3, low = b0 == 0xE0 ? 0xA0 : 0x80, high = b0 == 0xED ? 0x9F : 0xBF;
        else if (b0 >= 0xF0 && b0 <= 0xF4) want = 4, low = b0 == 0xF0 ? 0x90 : 0x80, high = b0 == 0xF4 ? 0x8F : 0xBF;
        std::size_t taken = 1;
        for (std::size_t k = 1; k < want && i + k < bytes.size(); ++k) {
            const unsigned char b = byte(i + k);
            const bool fits = k == 1 ? (b >= low && b <= high) : (b & 0xC0) == 0x80;
            if (!fits) break;
            ++taken;
        }
        text += "\xEF\xBF\xBD";
        i += taken;
    }
    return text;
}

std::string displayBytes(std::string_view bytes) {
    std::string text;
    for (std::size_t i = 0; i < bytes.size();) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        const std::size_t length = utf8SequenceLength(bytes, i);
        if (b == ' ') text += "\u2423";
        else if (b == '\n') text += "\u21B5";
        else if (b == '\t') text += "\u2192";
        else if (length == 0 || b < 0x20 || b == 0x7F) text += hexByte(b);
        else text.append(bytes, i, length);
        i += length == 0 ? 1 : length;
    }
    return text;
}

namespace {
// The bytes of a display text made only of "\xNN" escapes, or nullopt.
std::optional<std::string> escapedBytes(const std::string& text) {
    if (text.empty() || text.size() % 4 != 0) return std::nullopt;
    std::string bytes;
    for (std::size_t i = 0; i < text.size(); i += 4) {
        if (text[i] != '\\' || text[i + 1] != 'x' || !std::isxdigit(static_cast<unsigned char>(text[i + 2])) ||
            !std::isxdigit(static_cast<unsigned char>(text[i + 3])))
            return std::nullopt;
        bytes += static_cast<char>(std::stoi(text.substr(i + 2, 2), nullptr, 16));
    }
    return bytes;
}
}  // namespace

std::vector<std::string> joinSplitCharacters(const std::vector<std::string>& displayed) {
    std::vector<std::string> shown = displayed;
    const std::size_t n = displayed.size();
    for (std::size_t start = 0; start < n;) {
        // A run of tokens that are bytes only: their bytes, each with the token it came from.
        std::string bytes;
        std::vector<std::size_t> owner;
        std::size_t end = start;
        for (; end < n; ++end) {
            const std::optional<std::string> b = escapedBytes(displayed[end]);
            if (!b) break;
            bytes += *b;
            owner.insert(owner.end(), b->size(), end);
        }
        if (end == start) {
            ++start;
            continue;
        }
        // Each unit: a character (valid multi-byte sequence) or a byte left escaped.
        std::vector<std::string> pieces(end - start);
        std::vector<bool> joined(end - start, false);
        for (std::size_t p = 0; p < bytes.size();) {
            const std::size_t length = utf8SequenceLength(bytes, p);
            const std::size_t first = owner[p], last = owner[p + std::max<std::size_t>(length, 1) - 1];
            if (length < 2) {
                pieces[first - start] += hexByte(static_cast<unsigned char>(bytes[p]));
                ++p;
                continue;
            }
            const std::string character = bytes.substr(p, length);
            for (std::size_t t = first; t <= last; ++t) {
                pieces[t - start] += (t > first ? "\u2026" : "") + character + (t < last ? "\u2026" : "");
                joined[t - start] = joined[t - start] || first != last;
            }
            p += length;
        }
        for (std::size_t t = start; t < end; ++t)
            if (joined[t - start]) shown[t] = pieces[t - start];
        start = end;
    }
    return shown;
}

bool isWhitespace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace headscope::text
