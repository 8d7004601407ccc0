#pragma once
// What a model's tokenizer does for HeadScope, whatever its format: text -> ids, and each
// id back to text a reader can see. Implementations: Gpt2Tokenizer (vocab.json +
// merges.txt) and loadTokenizerJson's (tokenizer.json, TokenizerJson.h). Thread-safe: every const member may be called from several threads.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace headscope::text {

// The largest token id a vocabulary, merges or tokenizer.json file may give (a hostile file's
// 2^31 is refused, not allocated for).
inline constexpr int kMaxTokenId = 10'000'000;

// Text the tokenizer cannot encode (invalid UTF-8, a character the vocabulary lacks).
struct TokenizerError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A sentence pair as a tokenizer's template joins it: BERT's [CLS] A [SEP] B [SEP] with token
// types 0 then 1, RoBERTa's <s> A </s></s> B </s> (types all 0); second: the first position of B.
struct PairEncoding {
    std::vector<int> ids, types;
    int second = 0;
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // The model's ids for the text (special tokens the format adds, such as a BOS, included);
    // TokenizerError with one sentence when the text cannot be encoded.
    virtual std::vector<int> encode(std::string_view utf8) const = 0;
    // The text of the ids, always valid UTF-8 (invalid sequences become U+FFFD).
    virtual std::string decode(const std::vector<int>& ids) const = 0;
    // One token as a reader should see it: a space shown as '␣' (U+2423), newline as '↵',
    // tab as '→', bytes that are not UTF-8 on their own as \xNN.
    virtual std::string displayText(int id) const = 0;
    virtual bool hasId(int id) const = 0;
    // One past the largest id.
    virtual int idLimit() const = 0;
    // False for a model folder without a tokenizer (IdsOnlyTokenizer): it reads ids, not text.
    virtual bool encodesText() const { return true; }
    // Two sentences joined by the tokenizer's pair template (tokenizer.json's post_processor);
    // TokenizerError with one sentence when it has none or a text cannot be encoded.
    virtual PairEncoding encodePair(std::string_view first, std::string_view second) const;
};

}  // namespace headscope::text
