#pragma once
// The lines the Token lines view draws (TokenLinesView.h), chosen from a layer's maps: every
// allowed (query, key) of the shown heads, those under kThinWeight as hairlines (left out past
// kMaxThinLines of them), and past kMaxLines only the heaviest. Pure: it reads the analysis and
// returns the lines, so a long text's are chosen off the GUI thread (ResultStore::tokenLines).

#include <vector>

#include "Analysis.h"

namespace headscope::ui {

struct TokenLine {
    int head = 0, query = 0, key = 0;
    float weight = 0;  // the engine's softmax weight, exactly
    bool thin = false; // under kThinWeight: a hairline
};

// A sentence pair (Analysis::second_sentence): every line, or only those from A's queries to B's
// keys, or from B's to A's.
enum class TokenLineSentences { All, AToB, BToA };

struct TokenLineSet {
    static constexpr float kThinWeight = 0.02f;
    static constexpr int kMaxThinLines = 40000;
    // A long text links more words than can be drawn, or seen: the heaviest kMaxLines lines are kept.
    static constexpr int kMaxLines = 10000;

    std::vector<TokenLine> lines;  // lightest first (the strong drawn on top), equal weights in head, query, key order
    bool thin_omitted = false;     // over kMaxThinLines hairlines: none drawn
    long long omitted = 0;         // past kMaxLines: the lightest, left out
};

// heads: indices into analysis.results.heads, each in range.
TokenLineSet chooseTokenLines(const Analysis& analysis, const std::vector<int>& heads, TokenLineSentences sentences);

}  // namespace headscope::ui
