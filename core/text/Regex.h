#pragma once
// A compiled PCRE2 pattern (UTF, Unicode properties) for the tokenizers' pre-tokenisation and
// replacement patterns. Matching is bounded (a match limit), so a hostile pattern from a
// file fails with a TokenizerError instead of running for minutes. Thread-safe: the
// compiled code is read-only, match data is per call.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headscope::text {

class Regex {
public:
    // std::invalid_argument with PCRE2's message and offset when the pattern does not compile.
    explicit Regex(const std::string& pattern);

    // The non-empty, non-overlapping matches [begin, end) in valid UTF-8 text, left to right
    // (after an empty match the search moves on by one character).
    std::vector<std::pair<std::size_t, std::size_t>> findAll(std::string_view utf8) const;

    const std::string& pattern() const { return pattern_; }

private:
    struct Code;
    std::shared_ptr<const Code> code_;
    std::string pattern_;
};

}  // namespace headscope::text
