#include "text/WordPiece.h"

#include <stdexcept>

#include "io/Quote.h"
#include "text/Tokenizer.h"
#include "text/Utf8.h"

namespace headscope::text {

WordPieceModel::WordPieceModel(std::unordered_map<std::string, int> vocab, Options options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
    for (const auto& [token, id] : vocab_) {
        if (id < 0) throw std::invalid_argument("the WordPiece token " + io::quote(token) + " has the negative id " + std::to_string(id));
        if (std::size_t(id) >= id_to_token_.size()) id_to_token_.resize(std::size_t(id) + 1, nullptr);
        if (id_to_token_[std::size_t(id)])
            throw std::invalid_argument("the WordPiece tokens " + io::quote(*id_to_token_[std::size_t(id)]) + " and " +
                                        io::quote(token) + " share the id " + std::to_string(id));
        id_to_token_[std::size_t(id)] = &token;
    }
    if (const auto it = vocab_.find(options_.unk_token); it != vocab_.end()) unk_id_ = it->second;
}

const std::string* WordPieceModel::tokenOf(int id) const {
    return id >= 0 && std::size_t(id) < id_to_token_.size() ? id_to_token_[std::size_t(id)] : nullptr;
}

int WordPieceModel::unknown(const std::string& word) const {
    if (!unk_id_)
        throw TokenizerError("the word " + io::quote(word) + " has no WordPiece tokens and the vocabulary has no unknown token " +
                             io::quote(options_.unk_token));
    return *unk_id_;
}

std::vector<int> WordPieceModel::tokenize(const std::string& word) const {
    // Byte offsets of the word's characters, and its end: (characters + 1).
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < word.size();) {
        starts.push_back(i);
        i += std::max<std::size_t>(1, utf8SequenceLength(word, i));
    }
    const std::size_t characters = starts.size();
    starts.push_back(word.size());
    if (characters > std::size_t(options_.max_input_chars_per_word)) return {unknown(word)};
    std::vector<int> ids;
    std::string candidate;
    for (std::size_t start = 0; start < characters;) {
        // The longest piece [start, end) that is a token, end from the word's end down.
        std::size_t end = characters;
        int found = -1;
        for (; end > start; --end) {
            candidate.assign(start > 0 ? options_.continuing_subword_prefix : std::string());
            candidate.append(word, starts[start], starts[end] - starts[start]);
            if (const auto it = vocab_.find(candidate); it != vocab_.end()) {
                found = it->second;
                break;
            }
        }
        if (found < 0) return {unknown(word)};  // one piece without a token: the whole word is unknown
        ids.push_back(found);
        start = end;
    }
    return ids;
}

}  // namespace headscope::text
