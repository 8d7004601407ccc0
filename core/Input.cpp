#include "Input.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "Parallel.h"
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

namespace {
// Columns [begin, end) of the (n, d_model) sinusoidal encoding: one frequency per pair of
// dimensions (2i, 2i+1), so d_model / 2 powers, not n * d_model.
void fillPositions(Eigen::MatrixXf& pe, int begin, int end) {
    const int n = static_cast<int>(pe.rows()), d_model = static_cast<int>(pe.cols());
    for (int j = begin; j < end; ++j) {
        const double wavelength = std::pow(10000.0, 2.0 * (j / 2) / d_model);  // 10000^(2i / d_model)
        for (int pos = 0; pos < n; ++pos) {
            const double angle = pos / wavelength;
            pe(pos, j) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
}
constexpr int kPositionColumns = 64;  // columns of the encoding per parallel task
}  // namespace

Eigen::MatrixXf positionalEncoding(int n, int d_model) {
    Eigen::MatrixXf pe(n, d_model);  // (n, d_model)
    fillPositions(pe, 0, d_model);
    return pe;
}

namespace {
Sequence embedTokens(std::vector<std::string> tokens, std::uint64_t seed, int d_model) {
    Sequence s;
    const int n = static_cast<int>(tokens.size());
    // Each distinct token is embedded once (a random sequence repeats its 64 words), the
    // distinct ones in parallel with each other and with the positions' sines and cosines.
    std::unordered_map<std::string, int> index_of;  // token -> its row in `embedded`
    std::vector<const std::string*> distinct;
    for (const std::string& token : tokens)
        if (index_of.try_emplace(token, static_cast<int>(distinct.size())).second) distinct.push_back(&token);
    const int k = static_cast<int>(distinct.size());
    Eigen::MatrixXf embedded(k, d_model);  // (distinct tokens, d_model)
    s.X.resize(n, d_model);  // (n, d_model): positions, then the tokens added
    const int column_tasks = (d_model + kPositionColumns - 1) / kPositionColumns;
    parallelFor(k + column_tasks, [&](int t) {
        if (t < k) {
            embedded.row(t) = tokenEmbedding(*distinct[std::size_t(t)], seed, d_model);
        } else {
            const int begin = (t - k) * kPositionColumns;
            fillPositions(s.X, begin, std::min(d_model, begin + kPositionColumns));
        }
    }, double(n) * d_model > 2e4);
    for (int pos = 0; pos < n; ++pos) s.X.row(pos) += embedded.row(index_of.at(tokens[std::size_t(pos)]));
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
