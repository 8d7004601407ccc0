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
#include <utility>
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

private:
    // The longest pattern that starts at text[at], as (its token's index, its length), or index -1.
    std::pair<int, std::size_t> longestMatch(std::string_view text, std::size_t at) const;

    std::vector<AddedToken> tokens_;
    std::vector<std::string> patterns_;
    // A byte trie of the patterns: time per text position bounded by the longest pattern,
    // whatever the number of tokens.
    struct Node {
        std::vector<std::pair<unsigned char, int>> children;  // sorted by byte
        int token = -1;                                       // a pattern ends here
    };
    std::vector<Node> trie_;
};

}  // namespace headscope::text
