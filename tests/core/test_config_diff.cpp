// ConfigDiff: the names of undo steps and the knobs that changed.
#include <gtest/gtest.h>

#include <functional>

#include "ConfigDiff.h"

using namespace headscope;

namespace {

struct Case {
    const char* knob;
    std::function<void(Config&)> change;
    const char* description;
};

}  // namespace

TEST(ConfigDiff, EqualConfigsChangeNothing) {
    const Config c;
    EXPECT_TRUE(changedKnobs(c, c).empty());
    EXPECT_EQ(describeChange(c, c), "");
}

TEST(ConfigDiff, EachKnobAloneIsNamedWithItsValues) {
    const std::vector<Case> cases{
        {"d_model", [](Config& c) { c.d_model = 128; }, "d_model 64 → 128"},
        {"heads", [](Config& c) { c.heads = 12; }, "heads 8 → 12"},
        {"d_k", [](Config& c) { c.d_k = 16; }, "d_k 8 (= d_model/heads) → 16"},
        {"d_v", [](Config& c) { c.d_v = 4; }, "d_v 8 (= d_model/heads) → 4"},
        {"kv_heads", [](Config& c) { c.kv_heads = 2; }, "K/V heads 8 (= heads) → 2"},
        {"text", [](Config& c) { c.text = "a cat"; }, "text"},
        {"seq_len", [](Config& c) { c.seq_len = 32; }, "random tokens off → 32"},
        {"source_text", [](Config& c) { c.source_text = "le chat"; }, "source text"},
        {"mask", [](Config& c) { c.mask = MaskKind::Causal; }, "mask none → causal"},
        {"padded_keys", [](Config& c) { c.padded_keys = {0, 3}; }, "padded keys none → 0, 3"},
        {"scale", [](Config& c) { c.scale = false; }, "1/√d_k scale on → off"},
        {"temperature", [](Config& c) { c.temperature = 1.5; }, "temperature 1 → 1.5"},
        {"init", [](Config& c) { c.init = InitKind::Normal; }, "initialiser xavier → normal"},
        {"init_sigma", [](Config& c) { c.init_sigma = 0.05; }, "σ 0.02 → 0.05"},
        {"seed", [](Config& c) { c.seed = 7; }, "seed 0 → 7"},
        {"bias", [](Config& c) { c.bias = false; }, "biases on → off"},
        {"rank_rtol", [](Config& c) { c.rank_rtol = 1e-6; }, "rank tolerance NumPy default → 1e-06"},
    };
    const Config before;
    for (const Case& k : cases) {
        Config after = before;
        k.change(after);
        ASSERT_FALSE(before == after) << k.knob;
        EXPECT_EQ(changedKnobs(before, after), std::vector<std::string>{k.knob});
        EXPECT_EQ(describeChange(before, after), k.description);
    }
}

TEST(ConfigDiff, ClearedTextsAndLongKeyListsAreShort) {
    Config before, after;
    after.text.clear();
    EXPECT_EQ(describeChange(before, after), "text cleared");
    before.source_text = "le chat";
    after = before;
    after.source_text.clear();
    EXPECT_EQ(describeChange(before, after), "source text cleared");
    after = before;
    after.padded_keys = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(describeChange(before, after), "padded keys none → 1, 2, 3, 4, 5, 6, …");
}

TEST(ConfigDiff, TheLockIsOneChange) {
    Config locked, unlocked;
    unlocked.d_k = unlocked.d_v = 8;  // d_model 64 / 8 heads: the same numbers, now explicit
    EXPECT_EQ(describeChange(locked, unlocked), "unlock d_k = d_v = d_model / heads");
    EXPECT_EQ(describeChange(unlocked, locked), "lock d_k = d_v = d_model / heads");
    EXPECT_EQ(changedKnobs(locked, unlocked), (std::vector<std::string>{"d_k", "d_v"}));
    unlocked.d_k = 16;  // unlocked and changed: the numbers say it
    EXPECT_EQ(describeChange(locked, unlocked), "d_k 8 (= d_model/heads) → 16, d_v 8 (= d_model/heads) → 8");
}

TEST(ConfigDiff, TinyDifferencesInANumberStillCount) {
    Config before, after;
    after.temperature = 1.0 + 1e-12;  // shown alike, but a change
    EXPECT_EQ(changedKnobs(before, after), std::vector<std::string>{"temperature"});
}

TEST(ConfigDiff, SeveralChangesAreJoinedAndCounted) {
    Config before, after;
    after.d_model = 128;
    after.heads = 16;
    EXPECT_EQ(describeChange(before, after), "d_model 64 → 128, heads 8 → 16");
    after.mask = MaskKind::Causal;
    after.seed = 3;
    EXPECT_EQ(describeChange(before, after), "d_model 64 → 128, heads 8 → 16 and 2 more");
    EXPECT_EQ(changedKnobs(before, after), (std::vector<std::string>{"d_model", "heads", "mask", "seed"}));
}
