#pragma once
// Parsing tokenizer.json without building JSON values for its two large parts: the model's
// "vocab" (128k-152k tokens in Llama 3 or Qwen2) and "merges" (up to 280k) go straight into
// the containers the BPE model is built from (a SAX parser); the rest of the file becomes a
// JSON value as usual (with null in their place). Core-internal: includes nlohmann/json.

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace headscope::text {

struct TokenizerJsonDocument {
    nlohmann::json spec;  // the file, with model.vocab and model.merges null where read below
    bool has_vocab = false, has_merges = false;
    std::unordered_map<std::string, int> vocab;                  // model.vocab when it is an object
    std::vector<std::pair<std::string, std::string>> merges;     // model.merges when it is a list
};

// io::IoError("it is not valid JSON (...)", "it nests JSON more than 64 levels deep") for bad
// JSON; std::invalid_argument naming the token or merge for a vocab entry that is not a whole
// number in 0..max_id, or a merge that is neither "a b" nor ["a", "b"].
TokenizerJsonDocument readTokenizerJson(std::string_view text, long long max_id);

}  // namespace headscope::text
