// Rotary positions in core's forward() (Engine.h Rotary) against closed forms: each pair
// turns like a complex number, equal positions leave the logits as they are, only j - i
// matters, W_Q R W_K^T keeps rank <= d_k, the per-head check rotates too, and the Llama 3
// frequency scaling follows its three bands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <stdexcept>

#include "Engine.h"
#include "RotaryCircuits.h"
#include "Spectrum.h"
#include "Weights.h"
#include "common/ReferenceSvd.h"
#include "common/RotaryFixtures.h"
#include "model/Model.h"

using namespace headscope;

namespace {

using test::randomWeights;
using test::rotaryOf;

double maxDiff(const Results& a, const Results& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.heads.size(); ++i)
        worst = std::max(worst, double((a.heads[i].logits - b.heads[i].logits).cwiseAbs().maxCoeff()));
    return worst;
}

}  // namespace

TEST(Rotary, EachPairTurnsLikeAComplexNumberAndTheRestPasses) {
    const int d_k = 8, heads = 2;
    const Rotary rotary = rotaryOf(2, 100.0);  // partial: 4 of 8 dims turned
    Eigen::MatrixXf x = Eigen::MatrixXf::Random(3, heads * d_k);
    const Eigen::MatrixXf before = x;
    const std::vector<int> positions = {0, 5, 17};
    rotateHeads(rotary, positions, d_k, x);
    for (int r = 0; r < 3; ++r)
        for (int h = 0; h < heads; ++h) {
            for (int p = 0; p < 2; ++p) {
                // pair p = (a_p, b_p) = dims (p, p + m) of the head: (a + i b) e^{i t theta_p}
                const std::complex<double> z(before(r, h * d_k + p), before(r, h * d_k + 2 + p));
                const std::complex<double> turned = z * std::polar(1.0, positions[r] * double(rotary.inverse_frequencies(p)));
                EXPECT_NEAR(x(r, h * d_k + p), turned.real(), 2e-5);
                EXPECT_NEAR(x(r, h * d_k + 2 + p), turned.imag(), 2e-5);
            }
            for (int dim = 4; dim < d_k; ++dim) EXPECT_EQ(x(r, h * d_k + dim), before(r, h * d_k + dim));
        }
}

TEST(Rotary, EqualPositionsLeaveTheLogitsUnrotated) {
    // Delta = 0: q R(t) (k R(t))^T = q k^T for every t.
    const Weights w = randomWeights(16, 4, 2, 8, 3, true);
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(6, 16);
    AttentionOptions plain;
    AttentionOptions rotated = plain;
    rotated.rotary = rotaryOf(4, 10000.0);
    rotated.rotary.query_positions = rotated.rotary.key_positions = std::vector<int>(6, 29);
    const double diff = maxDiff(forward(plain, w, x, x), forward(rotated, w, x, x));
    std::printf("equal positions: max |rotated - unrotated logit| %.2e\n", diff);
    EXPECT_LE(diff, 2e-5);
    // ... and differing positions do change them (the rotation is really applied).
    rotated.rotary.query_positions = rotated.rotary.key_positions = {0, 1, 2, 3, 4, 5};
    EXPECT_GT(maxDiff(forward(plain, w, x, x), forward(rotated, w, x, x)), 1e-2);
}

TEST(Rotary, OnlyTheDistanceBetweenQueryAndKeyMatters) {
    // q at i, k at j  ==  q at i - s, k at j - s (here s = i: q unrotated, k turned by j - i).
    const Weights w = randomWeights(16, 4, 1, 8, 5, false);
    const Eigen::MatrixXf x_q = Eigen::MatrixXf::Random(3, 16), x_kv = Eigen::MatrixXf::Random(5, 16);
    AttentionOptions far;
    far.rotary = rotaryOf(4, 10000.0);
    far.rotary.query_positions = {40, 40, 40};
    far.rotary.key_positions = {33, 37, 40, 41, 50};
    AttentionOptions near = far;
    near.rotary.query_positions = {0, 0, 0};
    near.rotary.key_positions = {-7, -3, 0, 1, 10};
    const double diff = maxDiff(forward(far, w, x_q, x_kv), forward(near, w, x_q, x_kv));
    std::printf("shifted by 40: max |logit difference| %.2e\n", diff);
    EXPECT_LE(diff, 5e-5);
}

TEST(Rotary, RotatedQueryKeyProductKeepsRankAtMostDk) {
    // W_Q,i R(Delta) W_K,i^T (d, d): R is orthogonal, so the rank stays <= d_k at every Delta.
    const int d = 24, d_k = 6;
    const Weights w = randomWeights(d, 1, 1, d_k, 9, false);
    const Rotary rotary = rotaryOf(3, 10000.0);
    for (int delta : {0, 1, 7, 100}) {
        Eigen::MatrixXf R = Eigen::MatrixXf::Identity(d_k, d_k);
        rotateHeads(rotary, std::vector<int>(d_k, delta), d_k, R);  // rows of I turned: R(delta)
        EXPECT_LE((R * R.transpose() - Eigen::MatrixXf::Identity(d_k, d_k)).cwiseAbs().maxCoeff(), 1e-5);
        const Eigen::MatrixXf product = w.W_Q * R * w.W_K.transpose();
        const Eigen::VectorXf s = test::referenceSingularValues(product.cast<double>()).cast<float>();
        const int rank = static_cast<int>((s.array() > 1e-5f * s(0)).count());
        EXPECT_EQ(rank, d_k) << "Delta " << delta;
    }
}

TEST(Rotary, PerHeadAndMergedChecksRotate) {
    const Weights w = randomWeights(16, 4, 2, 8, 11, true);
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(7, 16);
    AttentionOptions options;
    options.mask = MaskKind::Causal;
    options.rotary = rotaryOf(2, 10000.0);
    const Results fused = forward(options, w, x, x);
    const Equivalence e = checkEquivalence(options, w, x, x, fused);
    std::printf("rotary: per-head %.2e, merged W_QK(Delta) %.2e, max |logit| %.2f\n", e.fused_vs_per_head,
                e.factored_vs_merged, e.max_abs_logit);
    EXPECT_LE(e.fused_vs_per_head, 1e-5 * e.max_abs_logit);
    EXPECT_TRUE(e.merged_compared);
    EXPECT_LE(e.factored_vs_merged, 1e-5 * e.max_abs_logit);
    EXPECT_GT(e.compared_cells, 0);
    // Without rotation in the checks they would not agree: the check can fail.
    AttentionOptions unrotated = options;
    unrotated.rotary = Rotary{};
    const Equivalence wrong = checkEquivalence(unrotated, w, x, x, fused);
    EXPECT_GT(wrong.fused_vs_per_head, 1e-2);
    EXPECT_GT(wrong.factored_vs_merged, 1e-2);
}

TEST(Rotary, RefusesDimensionsThatDoNotFit) {
    Eigen::MatrixXf x = Eigen::MatrixXf::Random(2, 8);
    EXPECT_THROW(rotateHeads(rotaryOf(5, 100.0), {}, 8, x), std::invalid_argument);   // 10 dims > d_k 8
    EXPECT_THROW(rotateHeads(rotaryOf(2, 100.0), {0}, 8, x), std::invalid_argument);  // 1 position for 2 rows
}

TEST(Rotary, Llama3ScalingFollowsItsThreeBands) {
    model::ModelConfig c;
    c.rotary_dims = 16;
    c.rope_theta = 500000;
    const Eigen::VectorXf plain = model::rotaryInverseFrequencies(c);
    c.rope_scaling = "llama3";
    c.rope_factor = 8;
    c.rope_low_freq_factor = 1;
    c.rope_high_freq_factor = 4;
    c.rope_original_max_positions = 64;  // wavelengths: < 16 kept, > 64 divided by 8, between blended
    const Eigen::VectorXf scaled = model::rotaryInverseFrequencies(c);
    ASSERT_EQ(scaled.size(), 8);
    int kept = 0, divided = 0, blended = 0;
    for (int p = 0; p < 8; ++p) {
        const double wavelength = 2 * M_PI / plain(p);
        if (wavelength < 16) {
            EXPECT_EQ(scaled(p), plain(p));
            ++kept;
        } else if (wavelength > 64) {
            EXPECT_NEAR(scaled(p), plain(p) / 8, 1e-7 * plain(p));
            ++divided;
        } else {
            const double smooth = (64 / wavelength - 1) / (4 - 1);
            EXPECT_NEAR(scaled(p), (1 - smooth) * plain(p) / 8 + smooth * plain(p), 1e-6 * plain(p));
            ++blended;
        }
    }
    EXPECT_GT(kept, 0);
    EXPECT_GT(divided, 0);
    EXPECT_GT(blended, 0);
}

// ---- RotaryCircuits.h: W_QK,i(Delta), the split by frequency pair, the pair shares ----------

TEST(RotaryCircuits, DeltaZeroIsTheUnrotatedProductAndRankStaysAtMostDk) {
    const Weights w = randomWeights(20, 4, 2, 8, 21, false);
    const Rotary rotary = rotaryOf(3, 10000.0);  // partial: 6 of 8 dims
    for (int head = 0; head < 4; ++head) {
        const ThinFactors zero = rotatedQueryKey(w, head, rotary, 0);
        const Eigen::MatrixXd merged = w.queryHead(head).cast<double>() * w.keyHead(head).cast<double>().transpose();
        EXPECT_LE((zero.A * zero.B.transpose() - merged).cwiseAbs().maxCoeff(), 1e-12 * merged.cwiseAbs().maxCoeff());
        for (int delta : {-5, 0, 1, 13, 1000}) {
            const Spectrum s = rotatedQueryKeySpectrum(w, head, rotary, delta);
            EXPECT_LE(s.rank, 8);
            EXPECT_EQ(s.rank, 8);  // random weights: exactly d_k
            // Orthogonal M: the singular values of W_Q M W_K^T against an explicit SVD.
            const ThinFactors f = rotatedQueryKey(w, head, rotary, delta);
            const Spectrum naive = naiveProductSpectrum(f.A, f.B);
            EXPECT_LE((s.singular_values - naive.singular_values.head(s.singular_values.size())).cwiseAbs().maxCoeff(),
                      1e-9 * naive.singular_values(0));
        }
    }
}

TEST(RotaryCircuits, MergedFormWithTheRotationGivesTheEngineLogits) {
    // x_i W_QK,i(j - i) x_j^T * factor == the rotated logit forward() computes (no biases).
    const Weights w = randomWeights(16, 4, 2, 8, 23, false);
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(6, 16);
    AttentionOptions options;
    options.rotary = rotaryOf(4, 500.0);
    const Results r = forward(options, w, x, x);
    double worst = 0;
    for (int head = 0; head < 4; ++head)
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                const ThinFactors f = rotatedQueryKey(w, head, options.rotary, j - i);
                const double logit = (x.row(i).cast<double>() * f.A) .dot(x.row(j).cast<double>() * f.B) *
                                     options.logitFactor(8);
                worst = std::max(worst, std::abs(logit - double(r.heads[head].logits(i, j))));
            }
    std::printf("x_i W_QK(Delta) x_j^T vs engine logits: %.2e\n", worst);
    EXPECT_LE(worst, 1e-4);
}

TEST(RotaryCircuits, PairContributionsSumToTheLogit) {
    const Weights w = randomWeights(16, 2, 1, 10, 29, true);
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(5, 16);
    AttentionOptions options;
    options.rotary = rotaryOf(3, 10000.0);  // 6 of 10 dims turned, 4 unrotated
    const Results r = forward(options, w, x, x);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            // unrotated q_i, k_j of head 1 (key/value head 0), biases added
            const Eigen::VectorXd q = (x.row(i) * w.queryHead(1) + w.b_Q.segment(10, 10)).transpose().cast<double>();
            const Eigen::VectorXd k = (x.row(j) * w.keyHead(1) + w.b_K.segment(0, 10)).transpose().cast<double>();
            const PairSplit split = splitByRotaryPair(options.rotary, q, k, j - i);
            ASSERT_EQ(split.pairs.size(), 3u);
            double sum = split.unrotated;
            for (const RotaryPair& p : split.pairs) sum += p.contribution;
            EXPECT_NEAR(sum, split.total, 1e-12);
            EXPECT_NEAR(split.total * options.logitFactor(10), r.heads[1].logits(i, j), 1e-4);
            EXPECT_NEAR(split.pairs[1].angle, split.pairs[1].frequency * (j - i), 1e-12);
            EXPECT_NEAR(split.unrotated, q.tail(4).dot(k.tail(4)), 1e-12);
        }
}

TEST(RotaryCircuits, PairSharesSumToOneAndFindWhereTheWeightsLive) {
    const Weights w = randomWeights(12, 2, 2, 8, 31, false);
    const Rotary rotary = rotaryOf(3, 10000.0);
    const std::vector<double> shares = pairShares(w, 0, rotary);
    ASSERT_EQ(shares.size(), 4u);  // three pairs and the unrotated part
    double sum = 0;
    for (double s : shares) sum += s;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    // A head whose W_Q and W_K use only pair 1 (dims 1 and 4): all of it in that pair.
    Weights only = w;
    for (int c = 0; c < 8; ++c)
        if (c != 1 && c != 4) {
            only.W_Q.col(c).setZero();
            only.W_K.col(c).setZero();
        }
    const std::vector<double> one = pairShares(only, 0, rotary);
    EXPECT_NEAR(one[1], 1.0, 1e-12);
    EXPECT_EQ(one[0], 0.0);
    EXPECT_EQ(one[3], 0.0);
}
