#include "Input.h"

#include <cmath>

#include "Random.h"

namespace headscope {

namespace {

// Letters, digits and every byte of a multi-byte UTF-8 character belong to words.
// (ASCII tests written out: std::isalnum depends on the process locale, which Qt sets.)
bool isWordByte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}
bool isSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

constexpr int kRandomVocabulary = 64;

}  // namespace

std::vector<std::string> tokenize(const std::string& text) {
    std::vector<std::string> tokens;
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (isSpace(c)) {
            ++i;
        } else if (isWordByte(c)) {
            std::size_t j = i;
            // An apostrophe between word characters stays inside the word: didn't, cat's.
            while (j < n && (isWordByte(static_cast<unsigned char>(text[j])) ||
                             (text[j] == '\'' && j + 1 < n && j > i &&
                              isWordByte(static_cast<unsigned char>(text[j + 1])))))
                ++j;
            tokens.push_back(text.substr(i, j - i));
            i = j;
        } else {
            tokens.push_back(text.substr(i, 1));
            ++i;
        }
    }
    return tokens;
}

Eigen::RowVectorXf tokenEmbedding(const std::string& token, std::uint64_t seed, int d_model) {
    Rng rng(deriveSeed(seed, "token:" + token));
    Eigen::RowVectorXf e(d_model);
    for (int j = 0; j < d_model; ++j) e(j) = static_cast<float>(rng.normal());
    return e;
}

Eigen::MatrixXf positionalEncoding(int n, int d_model) {
    Eigen::MatrixXf pe(n, d_model);  // (n, d_model)
    for (int pos = 0; pos < n; ++pos) {
        for (int j = 0; j < d_model; ++j) {
            const int pair = j / 2;  // dimensions 2i and 2i+1 share one frequency
            const double angle = pos / std::pow(10000.0, 2.0 * pair / d_model);
            pe(pos, j) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
    return pe;
}

namespace {
Sequence embedTokens(std::vector<std::string> tokens, std::uint64_t seed, int d_model) {
    Sequence s;
    const int n = static_cast<int>(tokens.size());
    s.X = positionalEncoding(n, d_model);  // (n, d_model)
    for (int pos = 0; pos < n; ++pos) s.X.row(pos) += tokenEmbedding(tokens[pos], seed, d_model);
    s.tokens = std::move(tokens);
    return s;
}
}  // namespace

Sequence embedText(const std::string& text, std::uint64_t seed, int d_model) {
    return embedTokens(tokenize(text), seed, d_model);
}

Sequence randomSequence(int n, std::uint64_t seed, int d_model) {
    Rng rng(deriveSeed(seed, "random tokens"));
    std::vector<std::string> tokens(n);
    for (auto& token : tokens) token = "#" + std::to_string(rng.next() % kRandomVocabulary);
    return embedTokens(std::move(tokens), seed, d_model);
}

int queryLength(const Config& config) {
    return config.text.empty() ? config.seq_len : static_cast<int>(tokenize(config.text).size());
}

int keyValueLength(const Config& config) {
    return config.isCross() ? static_cast<int>(tokenize(config.source_text).size()) : queryLength(config);
}

Input makeInput(const Config& config) {
    // Reads text, seq_len, seed, d_model and source_text only: Config::sameInput lists them.
    Input input;
    input.query = config.text.empty() ? randomSequence(config.seq_len, config.seed, config.d_model)
                                      : embedText(config.text, config.seed, config.d_model);
    input.cross = config.isCross();
    input.key_value = input.cross ? embedText(config.source_text, config.seed, config.d_model) : input.query;
    return input;
}

}  // namespace headscope
