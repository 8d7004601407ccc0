#include "model/HeadPatterns.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "text/Utf8.h"

namespace headscope::model {

namespace {

using KeyMask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

// A token's text without the marks tokenizers put on word pieces ("##", "Ġ", "▁", a display's
// "␣"), for the separator and punctuation tests.
std::string bareText(std::string text) {
    for (const char* mark : {"##", "\xC4\xA0", "\xE2\x96\x81", "\xE2\x90\xA3"})
        if (text.rfind(mark, 0) == 0) text.erase(0, std::char_traits<char>::length(mark));
    return text;
}

bool isSeparator(const std::string& token) { return token == "[SEP]" || token == "</s>"; }

// ASCII punctuation, and the General Punctuation and CJK punctuation blocks: every character of it.
bool isPunctuationToken(const std::string& token) {
    const std::string text = bareText(token);
    if (text.empty() || text == "[CLS]" || text == "[SEP]" || text == "[MASK]" || text == "[PAD]" || text == "[UNK]") return false;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = std::max<std::size_t>(1, text::utf8SequenceLength(text, i));
        const char32_t c = text::utf8CodePoint(text, i, length);
        const bool ascii = c < 0x80 && ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
                                        (c >= '{' && c <= '~'));
        if (!ascii && !(c >= 0x2010 && c <= 0x205E) && !(c >= 0x3000 && c <= 0x303F) && !(c >= 0xFF01 && c <= 0xFF0F)) return false;
        i += length;
    }
    return true;
}

}  // namespace

const std::vector<HeadPattern>& allHeadPatterns() {
    static const std::vector<HeadPattern> patterns = {HeadPattern::FirstToken, HeadPattern::Separator, HeadPattern::PreviousToken,
                                                      HeadPattern::NextToken,  HeadPattern::Self,      HeadPattern::Punctuation,
                                                      HeadPattern::OtherSentence, HeadPattern::Induction};
    return patterns;
}

std::string headPatternName(HeadPattern pattern) {
    switch (pattern) {
        case HeadPattern::FirstToken: return "first token";
        case HeadPattern::Separator: return "[SEP]";
        case HeadPattern::PreviousToken: return "previous token";
        case HeadPattern::NextToken: return "next token";
        case HeadPattern::Self: return "itself";
        case HeadPattern::Punctuation: return "punctuation";
        case HeadPattern::OtherSentence: return "other sentence";
        case HeadPattern::Induction: return "induction";
    }
    return "";
}

KeyMask headPatternKeys(const Trace& trace, HeadPattern pattern) {
    const int n = trace.n();
    KeyMask keys = KeyMask::Constant(n, n, false);  // (n_q, n_kv)
    const std::vector<int>& types = trace.options.token_types;
    const int second = trace.options.second_sentence;
    std::vector<bool> padded(std::size_t(n), false);
    for (int k : trace.options.attention.padded_keys)
        if (k >= 0 && k < n) padded[std::size_t(k)] = true;
    // Each key's token tested once, not once per query.
    std::vector<bool> separator(static_cast<std::size_t>(n), false), punctuation(static_cast<std::size_t>(n), false);
    for (int k = 0; k < n; ++k) {
        separator[std::size_t(k)] = isSeparator(trace.tokens[std::size_t(k)]);
        punctuation[std::size_t(k)] = isPunctuationToken(trace.tokens[std::size_t(k)]);
    }
    for (int q = 0; q < n; ++q) {
        if (padded[std::size_t(q)]) continue;
        for (int k = 0; k < n; ++k) {
            if (padded[std::size_t(k)]) continue;
            bool on = false;
            switch (pattern) {
                case HeadPattern::FirstToken: on = k == 0; break;
                case HeadPattern::Separator: on = separator[std::size_t(k)]; break;
                case HeadPattern::PreviousToken: on = k == q - 1; break;
                case HeadPattern::NextToken: on = k == q + 1; break;
                case HeadPattern::Self: on = k == q; break;
                case HeadPattern::Punctuation: on = punctuation[std::size_t(k)]; break;
                case HeadPattern::OtherSentence:  // where the second sentence starts, else the token types
                    on = second >= 0 ? (k >= second) != (q >= second)
                                     : !types.empty() && types[std::size_t(k)] != types[std::size_t(q)];
                    break;
                case HeadPattern::Induction:
                    on = k >= 1 && k - 1 < q && k <= q && trace.ids[std::size_t(k - 1)] == trace.ids[std::size_t(q)];
                    break;
            }
            keys(q, k) = on;
        }
    }
    return keys;
}

PatternKeySets::PatternKeySets(const Trace& trace) {
    const int n = trace.n();
    for (HeadPattern pattern : allHeadPatterns()) {
        const KeyMask keys = headPatternKeys(trace, pattern);  // (n, n)
        Keys sets;
        sets.applicable = static_cast<int>(keys.rowwise().any().count());
        sets.first.reserve(std::size_t(n) + 1);
        for (int k = 0; k < n; ++k) {
            sets.first.push_back(static_cast<int>(sets.queries.size()));
            for (int q = 0; q < n; ++q)
                if (keys(q, k)) sets.queries.push_back(q);
        }
        sets.first.push_back(static_cast<int>(sets.queries.size()));
        patterns_.push_back(std::move(sets));
    }
}

Eigen::VectorXf PatternKeySets::shares(const Eigen::MatrixXf& weights) const {
    // share = (1 / |Q_p|) sum over the pattern's (q, k) of A(q, k), in double; a column at a time.
    Eigen::VectorXf shares(static_cast<Eigen::Index>(patterns_.size()));
    for (std::size_t p = 0; p < patterns_.size(); ++p) {
        const Keys& sets = patterns_[p];
        double total = 0;
        for (std::size_t k = 0; k + 1 < sets.first.size(); ++k)
            for (int i = sets.first[k]; i < sets.first[k + 1]; ++i) total += weights(sets.queries[std::size_t(i)], Eigen::Index(k));
        shares(Eigen::Index(p)) = sets.applicable ? static_cast<float>(total / sets.applicable) : std::numeric_limits<float>::quiet_NaN();
    }
    return shares;
}

std::vector<int> PatternKeySets::queries() const {
    std::vector<int> counts;
    for (const Keys& sets : patterns_) counts.push_back(sets.applicable);
    return counts;
}

int patternQueries(const Trace& trace, HeadPattern pattern) {
    const auto& patterns = allHeadPatterns();
    const std::size_t index = std::size_t(std::find(patterns.begin(), patterns.end(), pattern) - patterns.begin());
    if (index < trace.pattern_queries.size()) return trace.pattern_queries[index];
    return static_cast<int>(headPatternKeys(trace, pattern).rowwise().any().count());
}

Eigen::MatrixXf headPatternShares(const Trace& trace, HeadPattern pattern) {
    const int layers = static_cast<int>(trace.layers.size());
    const int heads = layers ? static_cast<int>(trace.layers[0].attention.heads.size()) : 0;
    const auto& patterns = allHeadPatterns();
    const Eigen::Index row = std::find(patterns.begin(), patterns.end(), pattern) - patterns.begin();
    Eigen::MatrixXf shares = Eigen::MatrixXf::Constant(layers, heads, std::numeric_limits<float>::quiet_NaN());
    std::optional<PatternKeySets> keys;  // built when a layer kept its maps
    for (int l = 0; l < layers; ++l) {
        const LayerTrace& layer = trace.layers[std::size_t(l)];
        if (layer.pattern_shares.size()) {  // taken by the forward before it dropped the maps
            shares.row(l) = layer.pattern_shares.row(row);
            continue;
        }
        for (int h = 0; h < heads; ++h) {
            const Eigen::MatrixXf& weights = layer.attention.heads[std::size_t(h)].weights;  // (n, n)
            if (weights.rows() != trace.n()) continue;  // maps dropped, no shares taken
            if (!keys) keys.emplace(trace);
            shares(l, h) = keys->shares(weights)(row);
        }
    }
    return shares;
}

Trace layerPatterns(const Analysis& analysis) {
    if (analysis.input.cross)
        throw std::invalid_argument("what each head looks at compares a query with the keys of its own text: "
                                    "cross-attention's keys are another text");
    Trace trace;
    trace.tokens = analysis.input.query.tokens;
    for (std::size_t i = 0; i < trace.tokens.size(); ++i)  // the first position of an equal token
        trace.ids.push_back(int(std::find(trace.tokens.begin(), trace.tokens.begin() + std::ptrdiff_t(i), trace.tokens[i]) -
                                trace.tokens.begin()));
    trace.options.attention = analysis.attentionOptions();
    trace.options.second_sentence = analysis.second_sentence;
    const PatternKeySets keys(trace);
    trace.pattern_queries = keys.queries();
    LayerTrace layer;
    const std::vector<HeadResult>& heads = analysis.results.heads;
    layer.attention.heads.resize(heads.size());  // the heads, without their maps
    layer.pattern_shares.resize(Eigen::Index(allHeadPatterns().size()), Eigen::Index(heads.size()));
    for (std::size_t h = 0; h < heads.size(); ++h) layer.pattern_shares.col(Eigen::Index(h)) = keys.shares(heads[h].weights);
    trace.layers.push_back(std::move(layer));
    return trace;
}

std::vector<RankedHead> headsByShare(const Eigen::MatrixXf& shares) {
    std::vector<RankedHead> ranked;
    for (int l = 0; l < shares.rows(); ++l)
        for (int h = 0; h < shares.cols(); ++h)
            if (!std::isnan(shares(l, h))) ranked.push_back({l, h, shares(l, h)});
    // Stable: the row-major order above breaks ties by layer, then head.
    std::stable_sort(ranked.begin(), ranked.end(), [](const RankedHead& a, const RankedHead& b) { return a.share > b.share; });
    return ranked;
}

}  // namespace headscope::model
