// Tokens, token embeddings and the sinusoidal positional encoding.
#include <gtest/gtest.h>

#include <cmath>

#include "Input.h"

using namespace headscope;

TEST(Input, TokenizerSplitsWordsAndPunctuation) {
    const std::vector<std::string> expected = {"The", "animal", "didn't", "cross", "the", "street", ",", "ok", "?", "!"};
    EXPECT_EQ(tokenize("The animal didn't cross the street, ok?!"), expected);
    EXPECT_EQ(tokenize("  \t\n"), std::vector<std::string>{});
    EXPECT_EQ(tokenize("'quoted'"), (std::vector<std::string>{"'", "quoted", "'"}));
    EXPECT_EQ(tokenize("café über"), (std::vector<std::string>{"café", "über"}));
}

TEST(Input, SameWordSameEmbeddingEverywhere) {
    const Sequence s = embedText("it is what it is", 3, 16);
    const Eigen::MatrixXf pe = positionalEncoding(5, 16);
    // Remove the positions: "it" at 0 and 3, "is" at 1 and 4 have identical embeddings.
    EXPECT_TRUE((s.X.row(0) - pe.row(0)).isApprox(s.X.row(3) - pe.row(3), 1e-6f));
    EXPECT_TRUE((s.X.row(1) - pe.row(1)).isApprox(s.X.row(4) - pe.row(4), 1e-6f));
    EXPECT_FALSE((s.X.row(0) - pe.row(0)).isApprox(s.X.row(1) - pe.row(1), 1e-3f));
    EXPECT_EQ(tokenEmbedding("it", 3, 16), tokenEmbedding("it", 3, 16));
    EXPECT_NE(tokenEmbedding("it", 3, 16), tokenEmbedding("it", 4, 16));
}

TEST(Input, PositionalEncodingIsThePapersFormula) {
    const Eigen::MatrixXf pe = positionalEncoding(50, 10);
    EXPECT_FLOAT_EQ(pe(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(pe(0, 1), 1.0f);
    EXPECT_FLOAT_EQ(pe(1, 0), float(std::sin(1.0)));
    EXPECT_FLOAT_EQ(pe(1, 1), float(std::cos(1.0)));
    EXPECT_FLOAT_EQ(pe(7, 4), float(std::sin(7 / std::pow(10000.0, 4.0 / 10))));
    EXPECT_FLOAT_EQ(pe(49, 9), float(std::cos(49 / std::pow(10000.0, 8.0 / 10))));
    // Odd d_model: the last column is a sine.
    EXPECT_FLOAT_EQ(positionalEncoding(3, 5)(2, 4), float(std::sin(2 / std::pow(10000.0, 4.0 / 5))));
}

TEST(Input, SequenceLengthGivesSeededRandomTokens) {
    const Sequence a = randomSequence(20, 9, 8), b = randomSequence(20, 9, 8);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ(a.X, b.X);
    EXPECT_EQ(a.tokens.size(), 20u);
    EXPECT_EQ(a.tokens[0][0], '#');
    EXPECT_NE(randomSequence(20, 10, 8).tokens, a.tokens);
}

TEST(Input, CrossAttentionUsesTheSourceForKeys) {
    Config c;
    c.text = "a b";
    c.source_text = "x y z";
    const Input in = makeInput(c);
    EXPECT_TRUE(in.cross);
    EXPECT_EQ(in.query.X.rows(), 2);
    EXPECT_EQ(in.key_value.X.rows(), 3);
    EXPECT_EQ(queryLength(c), 2);
    EXPECT_EQ(keyValueLength(c), 3);
}

TEST(Input, EmbeddingsAreExactlyTheFormulaPerPositionAndToken) {
    // Bit for bit what the definition gives, cell by cell: pe(pos, j) = sin or cos of
    // pos / 10000^(2 (j / 2) / d_model), plus the token's own seeded embedding.
    for (const int d_model : {8, 9, 768}) {
        const Sequence s = randomSequence(130, 21, d_model);  // 130 draws of a 64-word vocabulary: repeats
        ASSERT_EQ(s.X.rows(), 130);
        for (int pos = 0; pos < 130; ++pos) {
            const Eigen::RowVectorXf token = tokenEmbedding(s.tokens[std::size_t(pos)], 21, d_model);
            for (int j = 0; j < d_model; ++j) {
                const double angle = pos / std::pow(10000.0, 2.0 * (j / 2) / d_model);
                const float pe = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
                ASSERT_EQ(s.X(pos, j), pe + token(j)) << "d_model " << d_model << " pos " << pos << " j " << j;
            }
        }
    }
}
