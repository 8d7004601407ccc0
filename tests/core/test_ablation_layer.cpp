// Knocking heads out of one attention layer without a language model (generated weights, a
// loaded layer): the output against its closed forms, computed here head by head.
#include <gtest/gtest.h>

#include "common/AllClose.h"

#include <stdexcept>

#include "Config.h"
#include "Engine.h"
#include "Input.h"
#include "Weights.h"
#include "model/AblationLayer.h"

using namespace headscope;

namespace {

struct Layer {
    Config config;
    Weights weights;
    Results results;
};

// d_model 24, 4 heads (d_v 6), biases on, normal init so b_O is not zero, a causal mask.
Layer layer(int kv_heads = 0) {
    Layer l;
    l.config.d_model = 24;
    l.config.heads = 4;
    l.config.kv_heads = kv_heads;
    l.config.init = InitKind::Normal;
    l.config.init_sigma = 0.3;
    l.config.mask = MaskKind::Causal;
    l.config.seed = 7;
    l.config.text = "the cat sat on the mat and the dog sat too";
    l.weights = makeWeights(l.config);
    l.results = forward(l.config, l.weights, makeInput(l.config));
    return l;
}

// sum_i z_i W_O,i + b_O (n, d_model), with z_i given per head.
Eigen::MatrixXf throughWO(const Weights& w, const std::vector<Eigen::MatrixXf>& z) {
    Eigen::MatrixXf out = Eigen::MatrixXf::Zero(z[0].rows(), w.dModel());
    for (int i = 0; i < w.heads; ++i) out += z[std::size_t(i)] * w.outputHead(i);  // (n, d_v)(d_v, d_model)
    out.rowwise() += w.b_O;
    return out;
}

}  // namespace

// Zero mode: the output is the remaining heads' outputs through their rows of W_O, plus b_O.
TEST(AblationLayer, ZeroIsTheSumOfTheOtherHeadsThroughWO) {
    const Layer l = layer();
    ASSERT_GT(l.weights.b_O.norm(), 0.0f);
    std::vector<Eigen::MatrixXf> z;
    for (const HeadResult& h : l.results.heads) z.push_back(h.output);
    z[1].setZero();
    z[3].setZero();
    const model::LayerAblation a = model::ablateAttentionLayer({3, 1}, model::AblationMode::Zero, l.weights, l.results);
    EXPECT_EQ(a.heads, (std::vector<int>{1, 3}));
    const Eigen::MatrixXf expected = throughWO(l.weights, z);
    EXPECT_LT(test::maxAbsDifference(a.after, expected), 1e-5f);  // float32 sums of 24 terms of size ~1
    EXPECT_EQ(a.before, l.results.output);
    EXPECT_EQ(a.other_heads_max_difference, 0.0);
    // The change per position is exactly what heads 1 and 3 wrote there.
    const Eigen::MatrixXf written =
        l.results.heads[1].output * l.weights.outputHead(1) + l.results.heads[3].output * l.weights.outputHead(3);
    for (int p = 0; p < written.rows(); ++p) EXPECT_NEAR(a.change(p), written.row(p).norm(), 1e-5) << "position " << p;
    EXPECT_NEAR(a.max_change, a.change.maxCoeff(), 0.0);
    EXPECT_NEAR(a.relative_change, (a.after - a.before).norm() / a.before.norm(), 1e-6);
    EXPECT_GT(a.max_change, 0.01);
}

// Mean mode: the head's z rows are replaced by their mean over the n positions.
TEST(AblationLayer, MeanReplacesTheHeadsRowsByTheirMean) {
    const Layer l = layer(2);  // grouped-query attention: heads 0, 1 read key/value head 0
    std::vector<Eigen::MatrixXf> z;
    for (const HeadResult& h : l.results.heads) z.push_back(h.output);
    const Eigen::RowVectorXf mean = z[2].colwise().sum() / float(z[2].rows());  // (d_v)
    for (int r = 0; r < z[2].rows(); ++r) z[2].row(r) = mean;
    const model::LayerAblation a = model::ablateAttentionLayer({2}, model::AblationMode::Mean, l.weights, l.results);
    EXPECT_LT(test::maxAbsDifference(a.after, throughWO(l.weights, z)), 1e-5f);
    // Every row of the change is (mean - z_2[p]) W_O,2.
    for (int p = 0; p < z[2].rows(); ++p)
        EXPECT_NEAR(a.change(p), ((mean - l.results.heads[2].output.row(p)) * l.weights.outputHead(2)).norm(), 1e-5);
    EXPECT_EQ(a.other_heads_max_difference, 0.0);
}

// Every head off in zero mode leaves b_O on every row; none off changes nothing.
TEST(AblationLayer, AllOffLeavesTheBiasNoneOffChangesNothing) {
    const Layer l = layer();
    const model::LayerAblation all = model::ablateAttentionLayer({0, 1, 2, 3}, model::AblationMode::Zero, l.weights, l.results);
    for (int p = 0; p < all.after.rows(); ++p) EXPECT_EQ(all.after.row(p), l.weights.b_O) << "position " << p;
    const model::LayerAblation none = model::ablateAttentionLayer({}, model::AblationMode::Mean, l.weights, l.results);
    EXPECT_EQ(none.after, l.results.output);
    EXPECT_EQ(none.max_change, 0.0);
}

TEST(AblationLayer, HeadsTheLayerLacksAreRefusedInOneSentence) {
    const Layer l = layer();
    try {
        model::ablateAttentionLayer({4}, model::AblationMode::Zero, l.weights, l.results);
        FAIL() << "head 4 of 4 was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "cannot knock out head 4: the layer has heads 0 to 3");
    }
    EXPECT_THROW(model::ablateAttentionLayer({-1}, model::AblationMode::Zero, l.weights, l.results), std::invalid_argument);
}

TEST(AblationLayer, ParsesHeadNumbersAndLayerZeroNames) {
    EXPECT_EQ(model::parseLayerHeadList("2, 0,2"), (std::vector<int>{0, 2}));
    EXPECT_EQ(model::parseLayerHeadList("0.3,1"), (std::vector<int>{1, 3}));
    EXPECT_THROW(model::parseLayerHeadList("1.0"), std::invalid_argument);  // a single layer has no layer 1
    EXPECT_THROW(model::parseLayerHeadList("x"), std::invalid_argument);
    EXPECT_THROW(model::parseLayerHeadList(" , "), std::invalid_argument);
    EXPECT_THROW(model::parseLayerHeadList("-1"), std::invalid_argument);
}
