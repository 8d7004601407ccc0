// A window of a head's logits (core/Logits.h) is the whole map's cells, bit for bit, for every mask
// (causal, sliding window, band, none, padded keys), with Gemma 2's softcap, and at every d_k the
// models use; the softcap's bits do not depend on where an entry lies in memory.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "Engine.h"
#include "Logits.h"

using namespace headscope;

namespace {

struct Shape {
    MaskKind mask;
    int n_q, n_kv, window, d_k;
    double softcap;
};

std::string describe(const Shape& s) {
    return std::to_string(s.n_q) + " x " + std::to_string(s.n_kv) + (s.mask == MaskKind::Causal ? ", causal" : "") +
           ", window " + std::to_string(s.window) + ", d_k " + std::to_string(s.d_k) + ", softcap " +
           std::to_string(s.softcap);
}

}  // namespace

TEST(Logits, AWindowIsTheWholeMapsCellsBitForBit) {
    for (const Shape s : {Shape{MaskKind::Causal, 1001, 1001, 0, 64, 0}, Shape{MaskKind::Causal, 1100, 1100, 300, 64, 0},
                          Shape{MaskKind::Causal, 803, 811, 77, 16, 0}, Shape{MaskKind::None, 512, 512, 64, 64, 0},
                          Shape{MaskKind::None, 701, 699, 0, 64, 0}, Shape{MaskKind::None, 131, 131, 7, 8, 0},
                          Shape{MaskKind::Causal, 530, 530, 0, 256, 0}, Shape{MaskKind::Causal, 777, 777, 256, 128, 50.0},
                          Shape{MaskKind::None, 300, 257, 0, 32, 30.0}, Shape{MaskKind::Causal, 3, 3, 0, 4, 0}}) {
        std::srand(unsigned(s.n_q + s.window + s.d_k));
        constexpr int heads = 2;
        AttentionOptions options;
        options.mask = s.mask;
        options.window = s.window;
        options.softcap = s.softcap;
        options.padded_keys = {3 % s.n_kv};
        Results r;
        r.Q = Eigen::MatrixXf::Random(s.n_q, heads * s.d_k) * 3.0f;  // (n_q, heads*d_k): logits up to ~|10|
        r.K = Eigen::MatrixXf::Random(s.n_kv, s.d_k);                // one key/value head (n_kv, d_k)
        r.heads.resize(heads);
        std::mt19937 pick(7);
        for (int head = 0; head < heads; ++head) {
            const Eigen::MatrixXf whole = headLogits(options, r, head);  // (n_q, n_kv)
            // Single cells at the corners, on the tiles' edges (rows 239/240, keys 255/256) and at random;
            // then rectangles of any size, and the whole map.
            std::vector<std::array<Eigen::Index, 4>> windows;  // row, col, rows, cols
            for (Eigen::Index row : {0, 1, 47, 48, 239, 240, s.n_q - 1})
                for (Eigen::Index col : {0, 1, 7, 8, 255, 256, s.n_kv - 1})
                    if (row < s.n_q && col < s.n_kv) windows.push_back({row, col, 1, 1});
            for (int i = 0; i < 60; ++i) {
                const Eigen::Index row = pick() % s.n_q, col = pick() % s.n_kv;
                windows.push_back({row, col, 1, 1});
                windows.push_back({row, col, 1 + Eigen::Index(pick() % (s.n_q - row)), 1 + Eigen::Index(pick() % (s.n_kv - col))});
            }
            windows.push_back({0, 0, s.n_q, s.n_kv});
            for (const auto& [row, col, rows, cols] : windows) {
                const Eigen::MatrixXf window = headLogitsWindow(options, r, head, row, col, rows, cols);
                ASSERT_TRUE(window == whole.block(row, col, rows, cols))
                    << describe(s) << ", head " << head << ": window of " << rows << " x " << cols << " at (" << row << ", "
                    << col << ")";
            }
        }
    }
}

TEST(Logits, AWindowOutsideTheMapOrOfAMissingHeadIsRefused) {
    Results r;
    r.Q = Eigen::MatrixXf::Random(10, 8);
    r.K = Eigen::MatrixXf::Random(12, 4);
    r.heads.resize(2);
    const AttentionOptions options;
    EXPECT_NO_THROW(headLogitsWindow(options, r, 1, 9, 11, 1, 1));
    EXPECT_NO_THROW(headLogitsWindow(options, r, 0, 0, 0, 0, 0));
    EXPECT_THROW(headLogitsWindow(options, r, 0, 9, 0, 2, 1), std::invalid_argument);
    EXPECT_THROW(headLogitsWindow(options, r, 0, 0, 11, 1, 2), std::invalid_argument);
    EXPECT_THROW(headLogitsWindow(options, r, 0, -1, 0, 1, 1), std::invalid_argument);
    EXPECT_THROW(headLogitsWindow(options, r, 2, 0, 0, 1, 1), std::invalid_argument);
}

// The same values capped in place at every offset from a 64-byte boundary and in every length give
// the same bits (Eigen's own tanh of a block takes its scalar path for the unaligned head and the tail).
TEST(Logits, SoftcapBitsDoNotDependOnWhereTheEntriesLie) {
    const Eigen::VectorXf values = Eigen::VectorXf::LinSpaced(1000, -60.0f, 60.0f);
    Eigen::MatrixXf reference = values;
    softcapInPlace(reference, 30.0f);
    for (int offset = 0; offset < 17; ++offset)
        for (const int length : {1, 15, 16, 17, 983}) {
            Eigen::MatrixXf buffer = Eigen::MatrixXf::Zero(offset + length, 1);
            buffer.col(0).segment(offset, length) = values.segment(17, length);
            softcapInPlace(buffer.block(offset, 0, length, 1), 30.0f);
            ASSERT_TRUE(buffer.col(0).segment(offset, length) == reference.col(0).segment(17, length))
                << "offset " << offset << ", length " << length;
        }
    // And the values are cap tanh(x / cap) to float accuracy, -cap and cap beyond the range.
    for (Eigen::Index i = 0; i < values.size(); ++i)
        EXPECT_NEAR(reference(i), 30.0 * std::tanh(double(values(i)) / 30.0), 2e-5 * 30.0) << values(i);
}
