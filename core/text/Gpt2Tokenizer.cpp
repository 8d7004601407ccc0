#include "text/Gpt2Tokenizer.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <nlohmann/json.hpp>

#include "io/Quote.h"
#include "io/IoError.h"
#include "io/JsonText.h"
#include "text/SmallFile.h"
#include "text/Utf8.h"

namespace headscope::text {

namespace {

constexpr const char* kPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::uintmax_t kMaxVocabFileBytes = 64u << 20;
constexpr std::uintmax_t kMaxMergesFileBytes = 64u << 20;
constexpr std::size_t kMaxCachedPieces = 100'000;

// The compiled pattern, shared by every tokenizer (PCRE2 code is read-only once compiled).
const pcre2_code* pattern() {
    static const struct Compiled {
        pcre2_code* code = nullptr;
        std::string error;
        Compiled() {
            int error_code = 0;
            PCRE2_SIZE error_offset = 0;
            code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                                 &error_code, &error_offset, nullptr);
            if (!code) {
                PCRE2_UCHAR message[256];
                pcre2_get_error_message(error_code, message, sizeof message);
                error = reinterpret_cast<const char*>(message);
                return;
            }
            pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // optional speed-up; the interpreter is the fallback
        }
    } compiled;
    if (!compiled.code) throw TokenizerError("GPT-2's pre-tokenisation pattern does not compile: " + compiled.error);
    return compiled.code;
}

// Text of a character for a message: 'é', or U+000A for invisible ones.
std::string describeCharacter(std::string_view character) {
    const unsigned char b0 = static_cast<unsigned char>(character[0]);
    std::string bytes;
    for (unsigned char b : character) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%s0x%02X", bytes.empty() ? "" : " ", b);  // 0x: "48" read as decimal
        bytes += hex;
    }
    if (character.size() == 1 && (b0 <= 0x20 || b0 == 0x7F)) {
        char code[16];
        std::snprintf(code, sizeof code, "U+%04X", b0);
        return std::string(code) + (b0 == 0x20 ? " (space)" : "") + " (byte " + bytes + ")";
    }
    return "'" + std::string(character) + "' (UTF-8 " + (character.size() == 1 ? "byte " : "bytes ") + bytes + ")";
}

}  // namespace

const std::array<std::string, 256>& byteToUnicode() {
    static const std::array<std::string, 256> table = [] {
        std::array<std::string, 256> t;
        const auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
        int next = 0;
        for (int b = 0; b < 256; ++b) t[b] = utf8Of(printable(b) ? b : 256 + next++);
        return t;
    }();
    return table;
}

std::vector<std::string> preTokenize(std::string_view utf8) {
    requireValidUtf8(utf8);
    const pcre2_code* code = pattern();
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
    if (!match) throw std::bad_alloc();
    std::vector<std::string> pieces;
    const auto subject = reinterpret_cast<PCRE2_SPTR>(utf8.data());
    PCRE2_SIZE start = 0;
    while (start < utf8.size()) {
        const int rc = pcre2_match(code, subject, utf8.size(), start, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;  // cannot happen: every character is \s, \p{L}, \p{N} or other
        if (rc < 0) throw TokenizerError("pre-tokenisation failed (PCRE2 error " + std::to_string(rc) + ")");
        const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
        if (span[1] <= span[0]) {  // empty match: step over one character
            start += std::max<std::size_t>(1, utf8SequenceLength(utf8, start));
            continue;
        }
        if (span[0] > start) pieces.emplace_back(utf8.substr(start, span[0] - start));  // unmatched text kept
        pieces.emplace_back(utf8.substr(span[0], span[1] - span[0]));
        start = span[1];
    }
    if (start < utf8.size()) pieces.emplace_back(utf8.substr(start));
    return pieces;
}

// ---- Gpt2Tokenizer -------------------------------------------------------------------

struct Gpt2Tokenizer::Cache {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<int>> pieces;
};

Gpt2Tokenizer::Gpt2Tokenizer() : cache_(std::make_shared<Cache>()) {}

Gpt2Tokenizer::Gpt2Tokenizer(std::unordered_map<std::string, int> vocab,
                             std::vector<std::pair<std::string, std::string>> merges)
    : token_to_id_(std::move(vocab)), cache_(std::make_shared<Cache>()) {
    int limit = 0;
    for (const auto& [token, id] : token_to_id_) {
        if (id < 0 || id > kMaxTokenId) throw std::invalid_argument("token id " + std::to_string(id) + " is out of range");
        limit = std::max(limit, id + 1);
    }
    id_to_token_.assign(static_cast<std::size_t>(limit), std::string());
    has_id_.assign(static_cast<std::size_t>(limit), false);
    for (const auto& [token, id] : token_to_id_) {
        id_to_token_[id] = token;
        has_id_[id] = true;
    }
    ranks_.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank)
        ranks_.emplace(merges[rank].first + " " + merges[rank].second, static_cast<int>(rank));  // first rank wins
}

Gpt2Tokenizer Gpt2Tokenizer::fromFiles(const std::string& vocab_json, const std::string& merges_txt) {
    using nlohmann::json;
    const std::string vocab_text = readSmallFile(vocab_json, kMaxVocabFileBytes, "vocabulary");
    const auto vocab_fail = [&](const std::string& why) {
        throw io::IoError("cannot read vocabulary '" + vocab_json + "': " + why);
    };
    json parsed;
    try {
        parsed = io::parseJsonText(vocab_text, "it");  // nesting bounded, errors in plain words
    } catch (const io::IoError& error) {
        vocab_fail(error.what());
    }
    if (!parsed.is_object()) vocab_fail("it is not a JSON object of token -> id");
    if (parsed.empty()) vocab_fail("it holds no tokens");
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(parsed.size());
    std::vector<std::string> by_id;
    for (const auto& [token, value] : parsed.items()) {
        if (!value.is_number_integer()) vocab_fail("the id of token " + io::quote(token) + " is not a whole number");
        const auto id = value.get<long long>();
        if (id < 0 || id > kMaxTokenId)
            vocab_fail("the id " + std::to_string(id) + " of token " + io::quote(token) + " is outside 0.." + std::to_string(kMaxTokenId));
        if (token.empty()) vocab_fail("it has an empty token (id " + std::to_string(id) + ")");
        if (static_cast<std::size_t>(id) >= by_id.size()) by_id.resize(static_cast<std::size_t>(id) + 1);
        if (!by_id[id].empty())
            vocab_fail("tokens " + io::quote(by_id[id]) + " and " + io::quote(token) + " both have id " + std::to_string(id));
        by_id[id] = token;
        vocab.emplace(token, static_cast<int>(id));
    }

    const std::string merges_text = readSmallFile(merges_txt, kMaxMergesFileBytes, "merges");
    std::vector<std::pair<std::string, std::string>> merges;
    std::istringstream lines(merges_text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (number == 1 && line.rfind("#version", 0) == 0)) continue;
        const std::size_t space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos)
            throw io::IoError("cannot read merges '" + merges_txt + "': line " + std::to_string(number) +
                              " is not two symbols separated by one space");
        if (invalidUtf8Offset(line))
            throw io::IoError("cannot read merges '" + merges_txt + "': line " + std::to_string(number) + " is not valid UTF-8");
        merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    return Gpt2Tokenizer(std::move(vocab), std::move(merges));
}

std::vector<int> Gpt2Tokenizer::encodePiece(const std::string& piece) const {
    {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        if (const auto it = cache_->pieces.find(piece); it != cache_->pieces.end()) return it->second;
    }
    // piece (bytes) -> one byte-level symbol per byte, then merges lowest rank first.
    std::vector<std::string> symbols;
    std::vector<std::size_t> byte_offset;  // where each symbol starts in the piece
    symbols.reserve(piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i) {
        symbols.push_back(byteToUnicode()[static_cast<unsigned char>(piece[i])]);
        byte_offset.push_back(i);
    }
    std::string key;
    while (symbols.size() > 1) {
        int best_rank = INT_MAX;
        std::size_t best = 0;
        for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
            key.assign(symbols[i]).append(" ").append(symbols[i + 1]);
            const auto it = ranks_.find(key);
            if (it != ranks_.end() && it->second < best_rank) best_rank = it->second, best = i;
        }
        if (best_rank == INT_MAX) break;
        // Merge every non-overlapping occurrence of the pair, left to right.
        const std::string first = symbols[best], second = symbols[best + 1];
        std::vector<std::string> merged;
        std::vector<std::size_t> merged_offset;
        for (std::size_t i = 0; i < symbols.size();) {
            if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
                merged.push_back(first + second);
                merged_offset.push_back(byte_offset[i]);
                i += 2;
            } else {
                merged.push_back(std::move(symbols[i]));
                merged_offset.push_back(byte_offset[i]);
                i += 1;
            }
        }
        symbols = std::move(merged);
        byte_offset = std::move(merged_offset);
    }
    std::vector<int> ids;
    ids.reserve(symbols.size());
    for (std::size_t s = 0; s < symbols.size(); ++s) {
        const auto it = token_to_id_.find(symbols[s]);
        if (it == token_to_id_.end()) {
            std::size_t start = byte_offset[s];  // the character that holds this symbol's first byte
            while (start > 0 && (static_cast<unsigned char>(piece[start]) & 0xC0) == 0x80) --start;
            const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(piece, start));
            throw TokenizerError("the model's vocabulary has no token for the character " +
                                 describeCharacter(std::string_view(piece).substr(start, length)));
        }
        ids.push_back(it->second);
    }
    const std::lock_guard<std::mutex> lock(cache_->mutex);
    if (cache_->pieces.size() >= kMaxCachedPieces) cache_->pieces.clear();
    cache_->pieces.emplace(piece, ids);
    return ids;
}

std::vector<int> Gpt2Tokenizer::encode(std::string_view utf8) const {
    std::vector<int> ids;
    for (const std::string& piece : preTokenize(utf8)) {
        const std::vector<int> piece_ids = encodePiece(piece);
        ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
    }
    return ids;
}

bool Gpt2Tokenizer::hasId(int id) const { return id >= 0 && id < idLimit() && has_id_[id]; }

const std::string& Gpt2Tokenizer::vocabString(int id) const {
    if (!hasId(id)) throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    return id_to_token_[id];
}

std::optional<int> Gpt2Tokenizer::idOf(const std::string& vocab_string) const {
    const auto it = token_to_id_.find(vocab_string);
    return it == token_to_id_.end() ? std::nullopt : std::optional(it->second);
}

std::string Gpt2Tokenizer::decodeBytes(const std::vector<int>& ids) const {
    // Inverse of bytes_to_unicode, keyed by the symbol's UTF-8.
    static const std::unordered_map<std::string, char> byte_of = [] {
        std::unordered_map<std::string, char> m;
        for (int b = 0; b < 256; ++b) m.emplace(byteToUnicode()[b], static_cast<char>(b));
        return m;
    }();
    std::string bytes;
    for (const int id : ids) {
        const std::string& token = vocabString(id);
        for (std::size_t i = 0; i < token.size();) {
            const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(token, i));
            const std::string symbol = token.substr(i, length);
            const auto it = byte_of.find(symbol);
            if (it != byte_of.end()) bytes += it->second;
            else bytes += symbol;  // not a byte-level symbol (e.g. an added token): its own UTF-8
            i += length;
        }
    }
    return bytes;
}

std::string Gpt2Tokenizer::decode(const std::vector<int>& ids) const { return replaceInvalidBytes(decodeBytes(ids)); }

std::string Gpt2Tokenizer::displayText(int id) const { return displayBytes(decodeBytes({id})); }

}  // namespace headscope::text
