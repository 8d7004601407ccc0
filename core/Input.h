#pragma once
// Token sequences and their embeddings.
// Text is split into word and punctuation tokens; each distinct token string gets an
// embedding derived only from (token, seed), so the same word always has the same
// vector; the sinusoidal positional encoding of "Attention Is All You Need" (sec. 3.5)
// is added. A bare sequence length draws seeded random tokens from a small vocabulary.

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "Config.h"

namespace headscope {

struct Sequence {
    std::vector<std::string> tokens;  // n labels
    Eigen::MatrixXf X;                // (n, d_model) embeddings + positional encoding
};

struct Input {
    Sequence query;       // target: queries (and keys/values for self-attention)
    Sequence key_value;   // source for cross-attention; same as query for self-attention
    bool cross = false;
};

// "The cat's toy, ok?" -> The | cat's | toy | , | ok | ?
std::vector<std::string> tokenize(const std::string& text);

// Embedding of one token string: N(0, 1) entries seeded by (token, seed). (d_model)
Eigen::RowVectorXf tokenEmbedding(const std::string& token, std::uint64_t seed, int d_model);

// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)). (n, d_model)
Eigen::MatrixXf positionalEncoding(int n, int d_model);

Sequence embedText(const std::string& text, std::uint64_t seed, int d_model);
Sequence randomSequence(int n, std::uint64_t seed, int d_model);

// Sequence lengths a valid config produces, without embedding anything.
int queryLength(const Config& config);
int keyValueLength(const Config& config);

// The input a valid config describes.
Input makeInput(const Config& config);

}  // namespace headscope
