#pragma once
// What each head looks at (Clark et al. 2019, "What Does BERT Look At?"; the induction heads of
// Olsson et al. 2022): for every layer and head of a run, the share of its attention that falls
// on a pattern's keys, averaged over the queries the pattern applies to.
//   share_p(l, h) = (1 / |Q_p|) sum_{q in Q_p} sum_{k in K_p(q)} A_lh(q, k)
// K_p(q) the pattern's keys for query q, Q_p the queries (not padded) with at least one such
// key; NaN where Q_p is empty (no [SEP] in the text, one token only). A share is in [0, 1]: 1
// when every applicable query puts all its weight there.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "model/Forward.h"

namespace headscope::model {

enum class HeadPattern {
    FirstToken,     // key 0: [CLS] for an encoder, the "attention sink" of a decoder
    Separator,      // the [SEP] / </s> tokens
    PreviousToken,  // key q - 1
    NextToken,      // key q + 1 (an encoder's; a causal head cannot look there)
    Self,           // key q
    Punctuation,    // tokens made of punctuation alone
    OtherSentence,  // keys of the other sentence of a pair (ForwardOptions::second_sentence, else the token types)
    Induction,      // the token after an earlier occurrence of the current one (k - 1 < q, token k-1 = token q)
};

// Every pattern, in the order views list them; the name a view shows ("previous token").
const std::vector<HeadPattern>& allHeadPatterns();
std::string headPatternName(HeadPattern pattern);

// The keys of `pattern` for each query: (n, n) true where key k is one of query q's. Padded
// queries have none. From the trace's tokens, token types and padded keys.
Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> headPatternKeys(const Trace& trace, HeadPattern pattern);

// Every pattern's keys for one run (allHeadPatterns() order), as lists of queries per key, so that
// a head's shares cost a pass over its pattern keys, not over its n x n map: what a long input's
// forward takes of each head's map before dropping it (LayerTrace::pattern_shares).
class PatternKeySets {
public:
    explicit PatternKeySets(const Trace& trace);
    // (patterns): the share of `weights` (n, n) on each pattern's keys, NaN where no query has one.
    Eigen::VectorXf shares(const Eigen::MatrixXf& weights) const;
    // (patterns): how many queries have at least one key of each pattern.
    std::vector<int> queries() const;

private:
    struct Keys {
        std::vector<int> first;    // (n + 1): key k's queries are queries[first[k] .. first[k + 1])
        std::vector<int> queries;  // ascending within each key
        int applicable = 0;        // queries with at least one key of the pattern
    };
    std::vector<Keys> patterns_;
};

// (layers, heads): each head's share on the pattern's keys, NaN where no query has such a key.
// The shares the forward took (LayerTrace::pattern_shares); a layer without them (a trace built
// by hand) from its maps.
Eigen::MatrixXf headPatternShares(const Trace& trace, HeadPattern pattern);
// How many queries have a key of `pattern`: the forward's count (Trace::pattern_queries), else from the keys.
int patternQueries(const Trace& trace, HeadPattern pattern);

// One layer on its own (generated or loaded weights, self-attention) as a one-layer trace of what
// each head looks at: its tokens (equal texts given equal ids, for the induction pattern), padded
// keys and second sentence, and each head's shares and the pattern counts (LayerTrace::pattern_shares,
// Trace::pattern_queries); no maps. std::invalid_argument for cross-attention, whose queries and
// keys are different texts.
Trace layerPatterns(const Analysis& analysis);

// A head and its share, for a list sorted by share.
struct RankedHead {
    int layer = 0, head = 0;
    float share = 0;
};

// The heads of `shares` (layers, heads) that have a share, strongest first; equal shares in
// layer then head order. NaN cells (the pattern does not apply, maps dropped) are left out.
std::vector<RankedHead> headsByShare(const Eigen::MatrixXf& shares);

}  // namespace headscope::model
