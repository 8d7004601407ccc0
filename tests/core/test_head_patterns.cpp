// What each head looks at (model/HeadPatterns.h) against closed forms on hand-made attention
// maps: a previous-token head, a uniform head, an induction head, a sentence pair, padding.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "Analysis.h"
#include "model/HeadPatterns.h"

using namespace headscope;
using namespace headscope::model;

namespace {

// One layer whose heads have the given maps, over `tokens` (ids: equal texts, equal ids).
Trace traceOf(const std::vector<std::string>& tokens, const std::vector<Eigen::MatrixXf>& maps) {
    Trace t;
    t.tokens = tokens;
    for (const std::string& token : tokens) {
        int id = 0;
        while (t.tokens[std::size_t(id)] != token) ++id;
        t.ids.push_back(id);
    }
    LayerTrace layer;
    for (const Eigen::MatrixXf& map : maps)
        layer.attention.heads.push_back({map, map, Eigen::MatrixXf(), Eigen::MatrixXf()});
    t.layers.push_back(layer);
    return t;
}

Eigen::MatrixXf previousToken(int n) {  // row q: all on q - 1 (row 0 on itself)
    Eigen::MatrixXf a = Eigen::MatrixXf::Zero(n, n);
    for (int q = 0; q < n; ++q) a(q, std::max(0, q - 1)) = 1;
    return a;
}

Eigen::MatrixXf uniform(int n) { return Eigen::MatrixXf::Constant(n, n, 1.0f / float(n)); }

}  // namespace

TEST(HeadPatterns, PreviousTokenAndUniformHeadsHaveTheirClosedForms) {
    const std::vector<std::string> tokens = {"[CLS]", "the", "cat", ".", "[SEP]", "it", "sat", "[SEP]"};
    const int n = 8;
    const Trace t = traceOf(tokens, {previousToken(n), uniform(n)});
    const auto share = [&](HeadPattern p, int head) { return headPatternShares(t, p)(0, head); };
    EXPECT_FLOAT_EQ(share(HeadPattern::PreviousToken, 0), 1.0f);        // queries 1..7, each all on q - 1
    EXPECT_FLOAT_EQ(share(HeadPattern::FirstToken, 0), 2.0f / n);       // queries 0 and 1 look at key 0
    EXPECT_FLOAT_EQ(share(HeadPattern::Self, 0), 1.0f / n);             // query 0 alone
    EXPECT_FLOAT_EQ(share(HeadPattern::NextToken, 0), 0.0f);
    EXPECT_FLOAT_EQ(share(HeadPattern::Separator, 0), 1.0f / n);        // query 5 looks at key 4, a [SEP]
    EXPECT_FLOAT_EQ(share(HeadPattern::Punctuation, 0), 1.0f / n);      // query 4 -> key 3 "."
    EXPECT_FLOAT_EQ(share(HeadPattern::PreviousToken, 1), 1.0f / n);
    EXPECT_FLOAT_EQ(share(HeadPattern::Separator, 1), 2.0f / n);        // two [SEP] keys of 8
    EXPECT_FLOAT_EQ(share(HeadPattern::Punctuation, 1), 1.0f / n);
    EXPECT_TRUE(std::isnan(share(HeadPattern::OtherSentence, 1))) << "no token types: no other sentence";
}

TEST(HeadPatterns, OtherSentenceCountsTheKeysOfTheOtherTokenType) {
    const int n = 6;
    Trace t = traceOf({"[CLS]", "a", "[SEP]", "b", "c", "[SEP]"}, {uniform(n)});
    t.options.token_types = {0, 0, 0, 1, 1, 1};
    EXPECT_FLOAT_EQ(headPatternShares(t, HeadPattern::OtherSentence)(0, 0), 0.5f);  // 3 of 6 keys for every query
    t.options.attention.padded_keys = {5};  // a padded key is nobody's, a padded query not counted
    // Queries 0-2 see keys 3, 4 (2/6 each); queries 3, 4 see keys 0-2 (3/6 each): (3 * 2 + 2 * 3) / 6 / 5.
    EXPECT_NEAR(headPatternShares(t, HeadPattern::OtherSentence)(0, 0), (3 * 2.0 + 2 * 3.0) / 6 / 5, 1e-7);
}

TEST(HeadPatterns, AnInductionHeadLooksAtTheTokenAfterTheEarlierOccurrence) {
    const int n = 6;  // a b c a b c: queries 3, 4, 5 have an earlier occurrence; their keys 1, 2, 3
    Eigen::MatrixXf induction = Eigen::MatrixXf::Zero(n, n);
    for (int q = 0; q < 3; ++q) induction(q, q) = 1;
    for (int q = 3; q < 6; ++q) induction(q, q - 2) = 1;
    const Trace t = traceOf({"a", "b", "c", "a", "b", "c"}, {induction, previousToken(n)});
    const Eigen::MatrixXf shares = headPatternShares(t, HeadPattern::Induction);
    EXPECT_FLOAT_EQ(shares(0, 0), 1.0f);
    EXPECT_FLOAT_EQ(shares(0, 1), 0.0f);
    const auto keys = headPatternKeys(t, HeadPattern::Induction);
    EXPECT_EQ(keys.count(), 3);
    EXPECT_TRUE(keys(3, 1) && keys(4, 2) && keys(5, 3));
    EXPECT_TRUE(std::isnan(headPatternShares(traceOf({"a", "b"}, {uniform(2)}), HeadPattern::Induction)(0, 0)));
}

TEST(HeadPatterns, HeadsByShareListsTheStrongestFirstAndLeavesNaNOut) {
    Eigen::MatrixXf shares(2, 3);  // (layers, heads)
    shares << 0.2f, std::nanf(""), 0.9f,
              0.9f, 0.5f, 0.1f;
    const std::vector<RankedHead> ranked = headsByShare(shares);
    ASSERT_EQ(ranked.size(), 5u);
    const std::vector<std::pair<int, int>> order = {{0, 2}, {1, 0}, {1, 1}, {0, 0}, {1, 2}};  // equal 0.9: layer 0 first
    for (std::size_t i = 0; i < order.size(); ++i) {
        EXPECT_EQ(ranked[i].layer, order[i].first) << i;
        EXPECT_EQ(ranked[i].head, order[i].second) << i;
        EXPECT_EQ(ranked[i].share, shares(order[i].first, order[i].second)) << i;
    }
    EXPECT_TRUE(headsByShare(Eigen::MatrixXf::Constant(2, 2, std::nanf(""))).empty());
}

// A single layer without a model (the Looks at tab on the built-in layer): its own tokens (equal
// words equal ids, so the induction pattern finds the repeat), padded keys, and each head's shares
// of its own maps, as a trace made by hand from the same maps gives them; cross-attention refused.
TEST(HeadPatterns, ASingleLayerLooksAtItsOwnText) {
    Config c;
    c.d_model = 16, c.heads = 4;
    c.text = "the cat sat , the cat sat";
    c.padded_keys = {2};
    const Analysis a = analyze(c, false);
    const Trace layer = layerPatterns(a);
    EXPECT_EQ(layer.ids, (std::vector<int>{0, 1, 2, 3, 0, 1, 2}));
    EXPECT_EQ(layer.tokens, a.input.query.tokens);
    ASSERT_EQ(layer.layers.size(), 1u);
    ASSERT_EQ(layer.layers[0].attention.heads.size(), 4u);
    std::vector<Eigen::MatrixXf> maps;
    for (const HeadResult& head : a.results.heads) maps.push_back(head.weights);
    Trace by_hand = traceOf(a.input.query.tokens, maps);
    by_hand.options.attention.padded_keys = {2};
    for (HeadPattern p : allHeadPatterns()) {
        const Eigen::MatrixXf got = headPatternShares(layer, p), want = headPatternShares(by_hand, p);
        EXPECT_TRUE((got.array() == want.array() || (got.array().isNaN() && want.array().isNaN())).all()) << headPatternName(p);
        EXPECT_EQ(patternQueries(layer, p), patternQueries(by_hand, p)) << headPatternName(p);
    }
    EXPECT_GT(patternQueries(layer, HeadPattern::Induction), 0);
    EXPECT_GT(patternQueries(layer, HeadPattern::Punctuation), 0);
    c.source_text = "a b c";
    EXPECT_THROW(layerPatterns(analyze(c, false)), std::invalid_argument);
}
