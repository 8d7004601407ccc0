#pragma once
// What a tokenizer.json "model" does to one pre-tokenised word: BPE (text/Bpe.h) or WordPiece
// (text/WordPiece.h). Thread-safe: tokenize() may be called from several threads.

#include <string>
#include <unordered_map>
#include <vector>

namespace headscope::text {

class SubwordModel {
public:
    virtual ~SubwordModel() = default;
    // One word -> its ids (TokenizerError for a character the model cannot encode).
    virtual std::vector<int> tokenize(const std::string& word) const = 0;
    virtual const std::unordered_map<std::string, int>& vocab() const = 0;
    // The token of an id, or nullptr.
    virtual const std::string* tokenOf(int id) const = 0;
    // One past the largest id.
    virtual int idLimit() const = 0;
};

}  // namespace headscope::text
