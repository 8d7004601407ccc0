#include "text/Bpe.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <queue>
#include <stdexcept>

#include "io/Quote.h"
#include "text/Tokenizer.h"
#include "text/Utf8.h"

namespace headscope::text {

namespace {
constexpr std::size_t kMaxCachedWords = 100'000;
constexpr std::size_t kMaxCachedWordBytes = 256;  // longer words are not cached

std::uint64_t pairKey(int left, int right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;  // Fibonacci hashing
}  // namespace

struct BpeModel::Cache {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<int>> words;
};

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<std::pair<std::string, std::string>>& merges,
                   Options options)
    : vocab_(std::move(vocab)), options_(std::move(options)), cache_(std::make_shared<Cache>()) {
    int limit = 0;
    for (const auto& [token, id] : vocab_) {
        if (id < 0 || id > kMaxTokenId)
            throw std::invalid_argument("the id " + std::to_string(id) + " of token " + io::quote(token) + " is outside 0.." +
                                        std::to_string(kMaxTokenId));
        limit = std::max(limit, id + 1);
    }
    id_to_token_.assign(static_cast<std::size_t>(limit), nullptr);
    for (const auto& [token, id] : vocab_) {
        if (id_to_token_[id])
            throw std::invalid_argument("tokens " + io::quote(*id_to_token_[id]) + " and " + io::quote(token) +
                                        " both have id " + std::to_string(id));
        id_to_token_[id] = &token;
    }
    // The id of a token the merges or the unknown token name; the message is built only on failure.
    const auto idOf = [&](const std::string& token, const auto& role) {
        const auto it = vocab_.find(token);
        if (it == vocab_.end()) throw std::invalid_argument(role() + " " + io::quote(token) + " is not in the vocabulary");
        return it->second;
    };
    const std::size_t prefix = options_.continuing_subword_prefix.size();
    std::size_t slots = 2;
    while (slots < 2 * merges.size()) slots *= 2, --merge_shift_;
    --merge_shift_;
    merges_.assign(merges.empty() ? 0 : slots, Merge{});
    std::string merged;
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const auto& [left, right] = merges[rank];
        const auto role = [rank](const char* part) { return [rank, part] { return "merge " + std::to_string(rank) + "'s " + part; }; };
        const int left_id = idOf(left, role("first part"));
        const int right_id = idOf(right, role("second part"));
        const bool prefixed = prefix > 0 && right.compare(0, prefix, options_.continuing_subword_prefix) == 0;
        merged.assign(left).append(right, prefixed ? prefix : 0, std::string::npos);
        const int merged_id = idOf(merged, role("result"));
        const std::uint64_t pair = pairKey(left_id, right_id);
        std::size_t slot = static_cast<std::size_t>((pair * kGolden) >> merge_shift_);
        while (merges_[slot].rank >= 0 && merges_[slot].pair != pair) slot = (slot + 1) & (merges_.size() - 1);
        merges_[slot] = {pair, static_cast<int>(rank), merged_id};  // as the library: the last rank wins
    }
    if (options_.unk_token) unk_id_ = idOf(*options_.unk_token, [] { return std::string("the unknown token"); });
}

const BpeModel::Merge* BpeModel::findMerge(int left, int right) const {
    if (merges_.empty()) return nullptr;
    const std::uint64_t pair = pairKey(left, right);
    for (std::size_t slot = static_cast<std::size_t>((pair * kGolden) >> merge_shift_);; slot = (slot + 1) & (merges_.size() - 1)) {
        if (merges_[slot].rank < 0) return nullptr;
        if (merges_[slot].pair == pair) return &merges_[slot];
    }
}

const std::string* BpeModel::tokenOf(int id) const {
    return id >= 0 && id < idLimit() ? id_to_token_[id] : nullptr;
}

std::vector<int> BpeModel::symbolsOf(const std::string& word) const {
    std::vector<int> ids;
    int pending_unk = -1;  // an unknown token not yet emitted (fused with the next ones), or -1
    std::string symbol;
    for (std::size_t i = 0; i < word.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(word, i));
        const bool first = i == 0, last = i + length >= word.size();
        symbol.assign(first ? "" : options_.continuing_subword_prefix).append(word, i, length);
        if (last) symbol += options_.end_of_word_suffix;
        const std::string_view character(word.data() + i, length);
        i += length;
        if (const auto it = vocab_.find(symbol); it != vocab_.end()) {
            if (pending_unk >= 0) ids.push_back(pending_unk), pending_unk = -1;
            ids.push_back(it->second);
            continue;
        }
        if (options_.byte_fallback) {
            std::vector<int> bytes;
            for (const char b : symbol) {
                char name[8];
                std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(b));
                const auto it = vocab_.find(name);
                if (it == vocab_.end()) break;
                bytes.push_back(it->second);
            }
            if (bytes.size() == symbol.size()) {  // as the library: a pending unknown stays pending
                ids.insert(ids.end(), bytes.begin(), bytes.end());
                continue;
            }
        }
        if (!unk_id_) {
            const char32_t code = utf8CodePoint(character, 0, character.size());
            char code_text[16];
            std::snprintf(code_text, sizeof code_text, "U+%04X", static_cast<unsigned>(code));
            throw TokenizerError("the model's vocabulary has no token for the character " + std::string(code_text) +
                                 (code > 0x20 && code != 0x7F ? " " + io::quote(character) : std::string()) +
                                 " and no unknown token");
        }
        if (pending_unk >= 0 && !options_.fuse_unk) ids.push_back(pending_unk);
        pending_unk = *unk_id_;
    }
    if (pending_unk >= 0) ids.push_back(pending_unk);
    return ids;
}

void BpeModel::mergeAll(std::vector<int>& ids) const {
    // Symbols as a doubly linked list over `ids`; candidates ordered by (rank, position).
    const int n = static_cast<int>(ids.size());
    if (n < 2 || merges_.empty()) return;
    std::vector<int> prev(n), next(n);
    std::vector<bool> alive(n, true);
    for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
    struct Candidate {
        int rank, position, merged_id;
        bool operator>(const Candidate& other) const {
            return rank != other.rank ? rank > other.rank : position > other.position;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    const auto consider = [&](int position) {
        if (position < 0 || next[position] < 0) return;
        if (const Merge* merge = findMerge(ids[position], ids[next[position]])) queue.push({merge->rank, position, merge->merged_id});
    };
    for (int i = 0; i + 1 < n; ++i) consider(i);
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        const int right = next[top.position];
        if (!alive[top.position] || right < 0) continue;
        const Merge* merge = findMerge(ids[top.position], ids[right]);
        if (!merge || merge->merged_id != top.merged_id) continue;  // stale
        ids[top.position] = top.merged_id;
        alive[right] = false;
        next[top.position] = next[right];
        if (next[right] >= 0) prev[next[right]] = top.position;
        consider(prev[top.position]);
        consider(top.position);
    }
    std::size_t kept = 0;
    for (int i = 0; i < n; ++i)
        if (alive[i]) ids[kept++] = ids[i];
    ids.resize(kept);
}

std::vector<int> BpeModel::tokenize(const std::string& word) const {
    if (word.empty()) return {};
    if (options_.ignore_merges)
        if (const auto it = vocab_.find(word); it != vocab_.end()) return {it->second};
    const bool cacheable = word.size() <= kMaxCachedWordBytes;
    if (cacheable) {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        if (const auto it = cache_->words.find(word); it != cache_->words.end()) return it->second;
    }
    std::vector<int> ids = symbolsOf(word);
    mergeAll(ids);
    if (cacheable) {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        if (cache_->words.size() >= kMaxCachedWords) cache_->words.clear();
        cache_->words.emplace(word, ids);
    }
    return ids;
}

}  // namespace headscope::text
