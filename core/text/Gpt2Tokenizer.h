#pragma once
// GPT-2's byte-level BPE tokenizer (Radford et al. 2019; openai/gpt-2 src/encoder.py),
// giving exactly GPT-2's ids for any valid UTF-8 text:
//   1. pre-tokenise with GPT-2's pattern (PCRE2, UTF + Unicode properties)
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   2. map each piece's UTF-8 bytes to printable characters (bytes_to_unicode: the 188
//      printable Latin-1 bytes stand for themselves, the others for U+0100.. in order, so
//      the space is 'Ġ' U+0120 and the newline 'Ċ' U+010A)
//   3. merge adjacent symbols, lowest merge rank first, until no ranked pair is left
//      (results cached per piece), and look each symbol up in the vocabulary.
// Text that is not valid UTF-8 is refused (TokenizerError naming the byte offset) rather
// than guessed at: GPT-2 itself only ever encodes Unicode strings. A symbol missing from
// the vocabulary (a tiny model without that byte) is a TokenizerError naming the character.
// "<|endoftext|>" in text is encoded as text, as GPT-2's encode() does.
// Thread-safe: encode() may be called from several threads on one const tokenizer.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/Tokenizer.h"
#include "text/Utf8.h"  // invalidUtf8Offset

namespace headscope::text {

// bytes_to_unicode: byte b -> the UTF-8 of the character that stands for it. (256)
const std::array<std::string, 256>& byteToUnicode();

// GPT-2's pre-tokenisation of valid UTF-8 text into pieces that concatenate to the text.
// "I'll  go!" -> "I" | "'ll" | " " | " go" | "!"
std::vector<std::string> preTokenize(std::string_view utf8);

class Gpt2Tokenizer : public Tokenizer {
public:
    Gpt2Tokenizer();  // empty vocabulary: encode() fails on any text
    // vocab: token (byte-level string) -> id; merges: pairs in rank order (rank = index).
    Gpt2Tokenizer(std::unordered_map<std::string, int> vocab, std::vector<std::pair<std::string, std::string>> merges);

    // Reads vocab.json ({"token": id, ...}) and merges.txt ("#version" line optional, then
    // one "left right" pair per line). One IoError naming the file and problem otherwise.
    static Gpt2Tokenizer fromFiles(const std::string& vocab_json, const std::string& merges_txt);

    // GPT-2's ids for the text; TokenizerError for invalid UTF-8 or a missing symbol.
    std::vector<int> encode(std::string_view utf8) const override;

    // The bytes the ids stand for (may be invalid UTF-8 where a character is split across
    // ids). Unknown ids are std::out_of_range.
    std::string decodeBytes(const std::vector<int>& ids) const;
    // Same, with every invalid UTF-8 sequence replaced by U+FFFD: always valid UTF-8.
    std::string decode(const std::vector<int>& ids) const override;

    // One token as a reader should see it: its decoded text with a space shown as '␣'
    // (U+2423), newline as '↵', tab as '→', other control bytes and bytes that are not
    // UTF-8 on their own (part of a split character) as \xNN.
    std::string displayText(int id) const override;

    // The vocabulary string of an id ("Ġthe"), or std::out_of_range.
    const std::string& vocabString(int id) const;
    std::optional<int> idOf(const std::string& vocab_string) const;
    bool hasId(int id) const override;
    // One past the largest id in vocab.json.
    int idLimit() const override { return static_cast<int>(id_to_token_.size()); }
    std::size_t vocabularySize() const { return token_to_id_.size(); }
    std::size_t mergeCount() const { return ranks_.size(); }

private:
    std::vector<int> encodePiece(const std::string& piece) const;

    std::unordered_map<std::string, int> token_to_id_;
    std::vector<std::string> id_to_token_;  // "" where no token has that id
    std::vector<bool> has_id_;
    std::unordered_map<std::string, int> ranks_;  // "left right" -> rank
    struct Cache;
    std::shared_ptr<Cache> cache_;  // piece -> ids; shared by copies, guarded by a mutex
};

}  // namespace headscope::text
