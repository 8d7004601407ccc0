#pragma once
// UTF-8 helpers shared by the tokenizers: validation, code points, the replacement of
// invalid sequences, and the display rules of Tokenizer::displayText.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headscope::text {

// Length (1 to 4) of the valid UTF-8 sequence starting at text[i], or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF count as invalid).
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

// Byte offset of the first invalid UTF-8 sequence, or nullopt when the text is valid.
std::optional<std::size_t> invalidUtf8Offset(std::string_view text);

// TokenizerError "the text is not valid UTF-8 (byte FF at offset 3)" unless the text is valid.
void requireValidUtf8(std::string_view text);

// The code point of the valid sequence of `length` bytes at text[i].
char32_t utf8CodePoint(std::string_view text, std::size_t i, std::size_t length);
// The UTF-8 of a code point (at most U+10FFFF).
std::string utf8Of(char32_t code);

// "\xNN" with upper-case hex digits.
std::string hexByte(unsigned char b);

// Every byte that does not start a valid sequence becomes U+FFFD (one per byte).
std::string replaceInvalidBytes(std::string_view bytes);
// As Rust's String::from_utf8_lossy: each maximal prefix of a would-be sequence becomes one
// U+FFFD (what the Hugging Face tokenizers library returns from decode).
std::string replaceInvalidLossy(std::string_view bytes);

// Bytes as a reader should see them: space as '␣' (U+2423), newline as '↵', tab as '→',
// other control bytes and bytes that are not UTF-8 on their own as \xNN.
std::string displayBytes(std::string_view bytes);

// The display texts of consecutive tokens (displayBytes's) where a character's bytes are split
// across tokens (byte fallback "<0xC3>" "<0xA9>", a byte-level BPE token ending mid-character):
// each such token shows the character its bytes belong to, "…" marking one continued from the
// previous token or into the next: "\xC3" "\xA9" -> "é…" "…é". Escapes that form no valid
// UTF-8 stay as they are; every other text is unchanged.
std::vector<std::string> joinSplitCharacters(const std::vector<std::string>& displayed);

// Rust's char::is_whitespace (the White_Space property).
bool isWhitespace(char32_t c);

}  // namespace headscope::text
