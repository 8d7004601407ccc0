// What the RoPE views draw (issue 22 item 4), against closed forms: every head's W_QK,i(Delta)
// spectrum and the selected head's formed product at one Delta (Delta = 0 is W_Q W_K^T, rank
// <= d_k at every Delta), and one cell's logit against Delta with its content fixed, which at
// the cell's own Delta is the engine's logit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "Analysis.h"
#include "Circuits.h"
#include "Engine.h"
#include "RotaryCircuits.h"
#include "Spectrum.h"
#include "Weights.h"
#include "common/ReferenceSvd.h"
#include "common/RotaryFixtures.h"

using namespace headscope;

namespace {

using test::randomWeights;
using test::rotaryOf;

}  // namespace

TEST(RotaryDelta, DeltaZeroGivesTheSpectraAndProductOfWqWkT) {
    const Weights w = randomWeights(24, 4, 2, 6, 41);
    const Rotary rotary = rotaryOf(2, 10000.0);  // partial: 4 of 6 dims turned
    const RotatedCircuits c = rotatedCircuits(w, rotary, 3, 0, 0, true);
    ASSERT_EQ(c.qk.size(), 4u);
    const std::vector<HeadSpectra> plain = headSpectra(w);
    for (int h = 0; h < 4; ++h) {
        const Eigen::VectorXd& a = c.qk[std::size_t(h)].singular_values;
        const Eigen::VectorXd& b = plain[std::size_t(h)].qk.singular_values;
        ASSERT_EQ(a.size(), b.size());
        EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-9 * b(0)) << "head " << h;
        EXPECT_EQ(c.qk[std::size_t(h)].rank, plain[std::size_t(h)].qk.rank);
    }
    const Circuits merged = headCircuits(w, 3);
    ASSERT_EQ(c.W_QK.rows(), 24);
    EXPECT_LE((c.W_QK - merged.W_QK).cwiseAbs().maxCoeff(), 1e-5f * merged.W_QK.cwiseAbs().maxCoeff());
    EXPECT_EQ(rotatedCircuits(w, rotary, 0, 0, 0, false).W_QK.size(), 0);  // not formed unless asked
}

TEST(RotaryDelta, RankStaysAtMostDkAtEveryDeltaAndTheSpectrumMoves) {
    const int d_k = 8;
    const Weights w = randomWeights(20, 4, 1, d_k, 43);  // every head shares key/value head 0
    const Rotary rotary = rotaryOf(4, 100.0);
    const RotatedCircuits zero = rotatedCircuits(w, rotary, 0, 0, 0, false);
    double moved = 0;
    for (int delta = -12; delta <= 12; ++delta) {
        const RotatedCircuits c = rotatedCircuits(w, rotary, 1, delta, 0, true);
        EXPECT_EQ(c.delta, delta);
        for (const Spectrum& s : c.qk) EXPECT_LE(s.rank, d_k) << "Delta " << delta;
        // The formed product has the rank its spectrum says (an explicit SVD of the d x d matrix).
        const Eigen::VectorXd sigma = test::referenceSingularValues(c.W_QK.cast<double>());
        const double tolerance = sigma(0) * 20 * 1e-6;  // the product was rounded to float
        EXPECT_LE((sigma.array() > tolerance).count(), d_k) << "Delta " << delta;
        moved = std::max(moved, (c.qk[1].singular_values - zero.qk[1].singular_values).cwiseAbs().maxCoeff());
    }
    EXPECT_GT(moved, 1e-3);  // the rotation between W_Q and W_K^T changes the spectrum
}

TEST(RotaryDelta, LogitAgainstDeltaAtTheCellsDeltaIsTheEngineLogit) {
    const int n = 7, d_k = 10, d = 16, heads = 4;
    const Weights w = randomWeights(d, heads, 2, d_k, 47);
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(n, d);
    AttentionOptions options;
    options.rotary = rotaryOf(3, 500.0);  // 6 of 10 dims turned
    options.rotary.query_positions = {3, 4, 5, 6, 7, 8, 9};  // offset positions: Delta from them, not the rows
    options.rotary.key_positions = options.rotary.query_positions;
    const Results r = forward(options, w, x, x);
    const double factor = options.logitFactor(d_k);
    double worst = 0, spread = 0;
    for (int h = 0; h < heads; ++h) {
        const int g = w.kvHeadOf(h);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const int delta = cellDelta(options.rotary, i, j);
                ASSERT_EQ(delta, j - i);
                const Eigen::VectorXf q = r.Q.row(i).segment(h * d_k, d_k).transpose();
                const Eigen::VectorXf k = r.K.row(j).segment(g * d_k, d_k).transpose();
                const LogitCurve curve = logitAgainstDelta(options.rotary, q, k, 3 + i, 3 + j, factor, -(n - 1), n - 1);
                ASSERT_EQ(curve.deltas.size(), std::size_t(2 * n - 1));
                const std::size_t at = std::size_t(delta + n - 1);
                ASSERT_EQ(curve.deltas[at], delta);
                worst = std::max(worst, std::abs(curve.logits[at] - double(r.heads[std::size_t(h)].logits(i, j))));
                const auto [lo, hi] = std::minmax_element(curve.logits.begin(), curve.logits.end());
                spread = std::max(spread, *hi - *lo);
            }
    }
    std::printf("logit(Delta = j - i) vs engine logits: max |diff| %.2e\n", worst);
    EXPECT_LE(worst, 1e-4);
    EXPECT_GT(spread, 1e-2);  // with the content fixed the logit still moves with Delta
}

TEST(RotaryDelta, CellDeltaFollowsTheRotaryPositions) {
    Rotary rotary = rotaryOf(2, 10000.0);
    EXPECT_EQ(cellDelta(rotary, 5, 2), -3);
    rotary.query_positions = {10, 11};
    rotary.key_positions = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    EXPECT_EQ(cellDelta(rotary, 1, 4), 4 - 11);
    EXPECT_THROW(logitAgainstDelta(rotary, Eigen::VectorXf::Ones(4), Eigen::VectorXf::Ones(3), 0, 0, 1, 0, 1),
                 std::invalid_argument);
}

// The RoPE tab's curve, computed in core from an Analysis (the view only draws it): every
// Delta from the smallest to the largest key-minus-query position of the input, the engine's
// logit at the cell's own Delta (rotary positions offset, as a KV cache's are), and one clear
// exception for a layer without rotary positions or a cell it does not have.
TEST(RotaryDelta, CellLogitCurveSpansTheInputAndMeetsTheEngineLogit) {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.kv_heads = 2;
    c.d_k = c.d_v = 8;
    c.mask = MaskKind::Causal;
    c.text = "one two three four five six";
    Analysis a = analyze(c, false);
    EXPECT_THROW(cellLogitCurve(a, 0, 1, 1), std::invalid_argument);  // no rotary positions
    AttentionOptions options = AttentionOptions::from(c);
    options.rotary = rotaryOf(3, 100.0);  // 6 of 8 dims turned
    options.rotary.query_positions = {4, 5, 6, 7, 8, 9};
    options.rotary.key_positions = {4, 5, 6, 7, 8, 9};
    a.rotary = options.rotary;
    a.results = forward(options, a.weights(), a.input.query.X, a.input.key_value.X);
    double worst = 0;
    for (int h = 0; h < 4; ++h)
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j <= i; ++j) {
                const CellLogitCurve curve = cellLogitCurve(a, h, i, j);
                ASSERT_EQ(curve.cell_delta, j - i);
                ASSERT_EQ(curve.curve.deltas.front(), -5);
                ASSERT_EQ(curve.curve.deltas.back(), 5);
                const double engine = a.results.heads[std::size_t(h)].logits(i, j);
                EXPECT_EQ(curve.engine_logit, engine);
                worst = std::max(worst, std::abs(curve.curve.logits[std::size_t(j - i + 5)] - engine));
            }
    EXPECT_LE(worst, 1e-4);
    EXPECT_THROW(cellLogitCurve(a, 4, 0, 0), std::out_of_range);
    EXPECT_THROW(cellLogitCurve(a, 0, 6, 0), std::out_of_range);
    EXPECT_THROW(cellLogitCurve(a, 0, 0, -1), std::out_of_range);
}
