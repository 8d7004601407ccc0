#pragma once
// The BPE model of the Hugging Face tokenizers library (tokenizers/src/models/bpe), as
// tokenizer.json declares it: one pre-tokenised word -> ids.
//   1. each character of the word (with continuing_subword_prefix after the first and
//      end_of_word_suffix on the last) is looked up in the vocabulary; a character without a
//      token becomes its UTF-8 bytes as <0xNN> tokens (byte_fallback) or the unknown token
//      (consecutive unknowns fused into one with fuse_unk);
//   2. adjacent symbols are merged, the pair of lowest merge rank first (leftmost among
//      equals), until no ranked pair is left (a priority queue: n log n in the word's length);
//   3. with ignore_merges, a word that is itself in the vocabulary is that token.
// A character with no token, no byte fallback and no unknown token is a TokenizerError
// naming it (the library silently drops it; HeadScope would rather say so).
// Thread-safe: tokenize() may be called from several threads (a cache guarded by a mutex).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/SubwordModel.h"

namespace headscope::text {

class BpeModel : public SubwordModel {
public:
    struct Options {
        std::optional<std::string> unk_token;
        bool fuse_unk = false;
        bool byte_fallback = false;
        bool ignore_merges = false;
        std::string continuing_subword_prefix;
        std::string end_of_word_suffix;
    };

    // std::invalid_argument naming the problem: a negative id, two tokens with one id, a
    // merge whose parts or result are not in the vocabulary, an unknown token not in it.
    BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<std::pair<std::string, std::string>>& merges,
             Options options);
    // Movable, not copyable: id_to_token_ points into vocab_'s nodes, which a move keeps.
    BpeModel(BpeModel&&) = default;
    BpeModel& operator=(BpeModel&&) = default;
    BpeModel(const BpeModel&) = delete;
    BpeModel& operator=(const BpeModel&) = delete;

    std::vector<int> tokenize(const std::string& word) const override;

    const std::unordered_map<std::string, int>& vocab() const override { return vocab_; }
    // The token of an id, or nullptr.
    const std::string* tokenOf(int id) const override;
    // One past the largest id.
    int idLimit() const override { return static_cast<int>(id_to_token_.size()); }

private:
    std::vector<int> symbolsOf(const std::string& word) const;
    void mergeAll(std::vector<int>& ids) const;

    std::unordered_map<std::string, int> vocab_;
    std::vector<const std::string*> id_to_token_;  // nullptr where no token has that id
    // (left id, right id) -> (rank, id of the merged token), in an open-addressing table
    // (linear probing, a power of two at least twice the merges): one cache line per lookup.
    struct Merge {
        std::uint64_t pair = 0;
        int rank = -1;  // -1: an empty slot
        int merged_id = -1;
    };
    const Merge* findMerge(int left, int right) const;
    std::vector<Merge> merges_;
    int merge_shift_ = 64;  // slot = (pair * odd constant) >> merge_shift_
    Options options_;
    std::optional<int> unk_id_;
    struct Cache;
    std::shared_ptr<Cache> cache_;
};

}  // namespace headscope::text
