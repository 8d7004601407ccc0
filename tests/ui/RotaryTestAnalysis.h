#pragma once
// The rotary layer the ui tests draw and compute over: d_model 32, 4 query heads of d_k 8 over
// 2 key/value heads, 9 tokens, causal, rotary positions on 6 of 8 dims (three frequencies,
// theta_p = 100^(-p/3)); rotary = false gives the same layer without them.
#include <cmath>
#include <memory>

#include "Analysis.h"
#include "Engine.h"

namespace headscope::test {

inline std::shared_ptr<const Analysis> rotaryAnalysis(bool rotary = true) {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.kv_heads = 2;
    c.d_k = c.d_v = 8;
    c.mask = MaskKind::Causal;
    c.text = "one two three four five six seven eight nine";
    Analysis a = analyze(c, false);
    if (rotary) {
        AttentionOptions options = AttentionOptions::from(c);
        options.rotary.inverse_frequencies.resize(3);
        for (int p = 0; p < 3; ++p) options.rotary.inverse_frequencies(p) = float(std::pow(100.0, -p / 3.0));
        a.rotary = options.rotary;
        a.results = forward(options, a.weights(), a.input.query.X, a.input.key_value.X);
    }
    return std::make_shared<const Analysis>(std::move(a));
}

}  // namespace headscope::test
