#pragma once
// The WordPiece model of the Hugging Face tokenizers library (tokenizers/src/models/wordpiece),
// BERT's: one pre-tokenised word -> ids, greedily the longest token from the left, each piece
// after the first looked up with continuing_subword_prefix ("##"); a word with a piece no token
// matches, or longer than max_input_chars_per_word characters, is the unknown token as a whole.
// A word that needs the unknown token when the vocabulary has none is a TokenizerError naming it
// (the library fails there too).

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/SubwordModel.h"

namespace headscope::text {

class WordPieceModel : public SubwordModel {
public:
    struct Options {
        std::string unk_token = "[UNK]";
        std::string continuing_subword_prefix = "##";
        int max_input_chars_per_word = 100;
    };

    // std::invalid_argument naming the problem: a negative id or two tokens with one id.
    WordPieceModel(std::unordered_map<std::string, int> vocab, Options options);
    WordPieceModel(WordPieceModel&&) = default;  // id_to_token_ points into vocab_'s nodes, which a move keeps
    WordPieceModel(const WordPieceModel&) = delete;
    WordPieceModel& operator=(const WordPieceModel&) = delete;

    std::vector<int> tokenize(const std::string& word) const override;
    const std::unordered_map<std::string, int>& vocab() const override { return vocab_; }
    const std::string* tokenOf(int id) const override;
    int idLimit() const override { return static_cast<int>(id_to_token_.size()); }

private:
    int unknown(const std::string& word) const;  // the unknown token's id, or TokenizerError

    std::unordered_map<std::string, int> vocab_;
    std::vector<const std::string*> id_to_token_;  // nullptr where no token has that id
    Options options_;
    std::optional<int> unk_id_;
};

}  // namespace headscope::text
