#pragma once
// The components a tokenizer.json declares around its model, built from their JSON
// (core-internal: includes nlohmann/json). Each builder throws std::invalid_argument with
// one sentence when a component is malformed or of a type HeadScope does not support
// (naming its type and the supported ones); the loader adds the file's name.
//   normalizer      text -> text, before pre-tokenisation
//   pre_tokenizer   pieces -> smaller pieces (the model sees each piece alone)
//   decoder         tokens -> text (decode), and one token -> its bytes (displayText)
//   post_processor  ids -> ids with the special tokens a template adds (single sequence)

#include <functional>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/Tokenizer.h"

namespace headscope::text {

// A piece of text during pre-tokenisation; at_start: it begins at offset 0 of the original
// text (Metaspace's prepend_scheme "first" prepends only there).
struct Piece {
    std::string text;
    bool at_start = false;
};

using Normalizer = std::function<std::string(std::string)>;
using PreTokenizer = std::function<std::vector<Piece>(std::vector<Piece>)>;
using PostProcessor = std::function<std::vector<int>(std::vector<int>)>;
// Two sequences of ids joined by the pair template: (first, second) -> ids, types, where B starts.
using PairProcessor = std::function<PairEncoding(std::vector<int>, std::vector<int>)>;

struct Decoder {
    std::function<std::vector<std::string>(std::vector<std::string>)> decode;  // the library's decode_chain
    std::function<std::string(std::string)> display;  // one token -> its bytes, nothing stripped
};

// Each returns an empty function for JSON null. For the post-processor, token_id resolves a
// special token's content to its id (or throws std::invalid_argument) and has_id says whether
// an id the file gives has a token (an id without one is refused).
Normalizer makeNormalizer(const nlohmann::json& spec);
PreTokenizer makePreTokenizer(const nlohmann::json& spec);
Decoder makeDecoder(const nlohmann::json& spec);
PostProcessor makePostProcessor(const nlohmann::json& spec, const std::function<int(const std::string&)>& token_id,
                                const std::function<bool(int)>& has_id);
// The post-processor's pair template (TemplateProcessing's "pair", BertProcessing's [CLS] A [SEP]
// B [SEP] with types 0 then 1, RobertaProcessing's <s> A </s></s> B </s>, all type 0); an empty
// function when it has none.
PairProcessor makePairProcessor(const nlohmann::json& spec, const std::function<int(const std::string&)>& token_id,
                                const std::function<bool(int)>& has_id);

// A Replace's or Split's "pattern" ({"String": ...} or {"Regex": ...}): text -> the
// non-overlapping matches [begin, end), left to right.
using SpanFinder = std::function<std::vector<std::pair<std::size_t, std::size_t>>(const std::string&)>;
SpanFinder patternFinder(const nlohmann::json& spec);
// The Replace normalizer (also the Replace decoder, token by token).
Normalizer makeReplace(const nlohmann::json& spec);

// Shared by the builders: a string field (or the fallback when absent), a boolean field.
std::string stringField(const nlohmann::json& spec, const char* key, const std::string& fallback);
bool boolField(const nlohmann::json& spec, const char* key, bool fallback);
// The component's "type", or std::invalid_argument.
std::string typeOf(const nlohmann::json& spec, const std::string& what);

}  // namespace headscope::text
