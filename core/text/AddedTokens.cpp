#include "text/AddedTokens.h"

#include <algorithm>

#include <utf8proc.h>

#include "text/Utf8.h"

namespace headscope::text {

namespace {

// The last or first character of valid UTF-8 text.
char32_t lastCharacter(std::string_view text) {
    std::size_t start = text.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    return utf8CodePoint(text, start, text.size() - start);
}
char32_t firstCharacter(std::string_view text) {
    return utf8CodePoint(text, 0, std::max<std::size_t>(1, utf8SequenceLength(text, 0)));
}

// A regular-expression word character (\w): letters, marks, digits, connector punctuation.
bool isWordCharacter(char32_t c) {
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
        case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT: case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
        case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_PC:
            return true;
        default:
            return c == 0x200C || c == 0x200D;
    }
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens, std::vector<std::string> patterns)
    : tokens_(std::move(tokens)), patterns_(std::move(patterns)), trie_(1) {
    for (std::size_t k = 0; k < patterns_.size(); ++k) {
        if (patterns_[k].empty()) continue;
        int node = 0;
        for (const char c : patterns_[k]) {
            const auto byte = static_cast<unsigned char>(c);
            auto& children = trie_[node].children;
            const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, 0),
                                             [](const auto& a, const auto& b) { return a.first < b.first; });
            if (it != children.end() && it->first == byte) {
                node = it->second;
            } else {
                const int child = static_cast<int>(trie_.size());
                children.insert(it, {byte, child});
                trie_.emplace_back();  // invalidates `children`: not used after this
                node = child;
            }
        }
        if (trie_[node].token < 0) trie_[node].token = static_cast<int>(k);  // the first of equal patterns wins
    }
}

std::pair<int, std::size_t> AddedTokenMatcher::longestMatch(std::string_view text, std::size_t at) const {
    std::pair<int, std::size_t> best{-1, 0};
    int node = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        const auto& children = trie_[node].children;
        const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(byte, 0),
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
        if (it == children.end() || it->first != byte) break;
        node = it->second;
        if (trie_[node].token >= 0) best = {trie_[node].token, i + 1 - at};
    }
    return best;
}

std::vector<Segment> AddedTokenMatcher::split(std::string_view text) const {
    std::vector<Segment> segments;
    std::size_t start_offset = 0;  // end of the last segment taken
    for (std::size_t at = 0; at < text.size();) {
        const auto [found, length] = longestMatch(text, at);
        if (found < 0) {
            ++at;
            continue;
        }
        std::size_t start = at, stop = at + length;
        at = stop;  // the next search starts after this match, whether it is used or not
        const AddedToken& token = tokens_[found];
        if (token.single_word) {
            const bool space_before = start == 0 || !isWordCharacter(lastCharacter(text.substr(0, start)));
            const bool space_after = stop == text.size() || !isWordCharacter(firstCharacter(text.substr(stop)));
            if (!space_before || !space_after) continue;
        }
        if (token.lstrip) {
            std::size_t new_start = start;
            while (new_start > 0) {
                std::size_t previous = new_start - 1;
                while (previous > 0 && (static_cast<unsigned char>(text[previous]) & 0xC0) == 0x80) --previous;
                if (!isWhitespace(utf8CodePoint(text, previous, new_start - previous))) break;
                new_start = previous;
            }
            start = std::max(new_start, start_offset);
        }
        if (token.rstrip) {
            while (stop < text.size()) {
                const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(text, stop));
                if (!isWhitespace(utf8CodePoint(text, stop, length))) break;
                stop += length;
            }
            at = std::max(at, stop);
        }
        if (start < start_offset) continue;  // overlaps what an earlier token's rstrip took
        if (start_offset < start) segments.push_back({std::string(text.substr(start_offset, start - start_offset)), std::nullopt, start_offset});
        segments.push_back({std::string(text.substr(start, stop - start)), token.id, start});
        start_offset = stop;
    }
    if (start_offset < text.size()) segments.push_back({std::string(text.substr(start_offset)), std::nullopt, start_offset});
    return segments;
}

}  // namespace headscope::text
