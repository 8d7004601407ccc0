#include "TokenLineChoice.h"

#include <algorithm>
#include <tuple>

namespace headscope::ui {

TokenLineSet chooseTokenLines(const Analysis& a, const std::vector<int>& heads, TokenLineSentences sentences) {
    TokenLineSet set;
    // The lines a sentence pair's choice keeps: A's queries to B's keys, or B's to A's.
    const int b = a.second_sentence;
    const auto kept = [&](int q, int k) {
        if (b <= 0 || sentences == TokenLineSentences::All) return true;
        return sentences == TokenLineSentences::AToB ? q < b && k >= b : q >= b && k < b;
    };
    const MaskMatrix& allowed = a.results.allowed;
    // One pass over the maps, each read down its columns as Eigen stores it (two passes across their
    // rows took 2.1 s for a 2,048-token layer of 32 heads, this one 0.3 s); the hairlines kept aside
    // until there are too many to draw. The lines' order is set by the sorts below, not by this loop.
    std::vector<TokenLine> hairlines;
    long long thin = 0;
    for (int h : heads) {
        const Eigen::MatrixXf& w = a.results.heads[std::size_t(h)].weights;  // (n_q, n_kv)
        for (int k = 0; k < w.cols(); ++k)
            for (int q = 0; q < w.rows(); ++q) {
                if (!allowed(q, k) || !kept(q, k)) continue;
                const float weight = w(q, k);
                if (weight >= TokenLineSet::kThinWeight) set.lines.push_back({h, q, k, weight, false});
                else if (++thin <= TokenLineSet::kMaxThinLines) hairlines.push_back({h, q, k, weight, true});
            }
    }
    set.thin_omitted = thin > TokenLineSet::kMaxThinLines;
    if (!set.thin_omitted) set.lines.insert(set.lines.end(), hairlines.begin(), hairlines.end());
    // Equal weights in head, query, key order.
    const auto before = [](const TokenLine& l, const TokenLine& r) {
        return std::tie(l.head, l.query, l.key) < std::tie(r.head, r.query, r.key);
    };
    // A long text: the heaviest kMaxLines lines.
    std::vector<TokenLine>& lines = set.lines;
    set.omitted = std::max<long long>(0, static_cast<long long>(lines.size()) - TokenLineSet::kMaxLines);
    if (set.omitted > 0) {
        std::nth_element(lines.begin(), lines.begin() + TokenLineSet::kMaxLines, lines.end(),
                         [&before](const TokenLine& l, const TokenLine& r) {
                             return l.weight != r.weight ? l.weight > r.weight : before(l, r);
                         });
        lines.resize(TokenLineSet::kMaxLines);
    }
    // Strong lines last: drawn on top.
    std::sort(lines.begin(), lines.end(), [&before](const TokenLine& l, const TokenLine& r) {
        return l.weight != r.weight ? l.weight < r.weight : before(l, r);
    });
    return set;
}

}  // namespace headscope::ui
