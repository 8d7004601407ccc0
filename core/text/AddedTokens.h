#pragma once
// The added tokens of a tokenizer.json ("added_tokens"), found in text as the Hugging Face
// tokenizers library finds them (AddedVocabulary::find_matches): leftmost-longest matches
// of their contents, then per token
//   single_word  only where no word character touches it on either side,
//   lstrip       takes the whitespace before it (not what an earlier match took),
//   rstrip       takes the whitespace after it.
// The text between matches is returned as segments without an id.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headscope::text {

struct AddedToken {
    int id = 0;
    std::string content;
    bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

struct Segment {
    std::string text;
    std::optional<int> id;   // the added token's id, or none for text in between
    std::size_t offset = 0;  // where the segment starts in the text split
};

class AddedTokenMatcher {
public:
    AddedTokenMatcher() = default;
    // patterns[k] is what to look for for tokens[k] (its content, or its normalised content).
    AddedTokenMatcher(std::vector<AddedToken> tokens, std::vector<std::string> patterns);

    std::vector<Segment> split(std::string_view text) const;
    bool empty() const { return tokens_.empty(); }

private:
    std::vector<AddedToken> tokens_;
    std::vector<std::string> patterns_;
    std::vector<std::vector<int>> by_first_byte_;  // (256) token indices, longest pattern first
};

}  // namespace headscope::text
