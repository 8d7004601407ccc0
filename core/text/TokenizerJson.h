#pragma once
// tokenizer.json, the Hugging Face tokenizers library's single-file format (Pythia, Llama,
// Qwen2, Mistral, SmolLM...), read into a text::Tokenizer giving the library's ids:
//   added tokens (matched whole before normalisation where "normalized" is false, after it
//   where true) -> normalizer -> pre_tokenizer -> BPE model -> post_processor (a BOS where
//   the template adds one); decode() and displayText() through the file's decoder.
// Supported: models BPE (byte-level, and SentencePiece-style with byte_fallback) and WordPiece
// (BERT: text/WordPiece.h); the
// normalizers, pre-tokenizers, decoders and post-processors listed in TokenizerParts.h's
// builders. Text that is not valid UTF-8 is refused (TokenizerError naming the byte offset):
// the library only takes Unicode strings. A character with no token and no unknown token is
// a TokenizerError (the library drops it silently).

#include <memory>
#include <string>

#include "text/Tokenizer.h"

namespace headscope::text {

// One io::IoError naming the file and the problem when the file is missing, too large, not
// JSON, malformed, or declares a component HeadScope does not support (its type and the
// supported ones).
std::shared_ptr<const Tokenizer> loadTokenizerJson(const std::string& path);
// The same from the file's text; `path` names it in messages.
std::shared_ptr<const Tokenizer> loadTokenizerJsonText(const std::string& text, const std::string& path);

}  // namespace headscope::text
