// Validation: every problem in words, nothing silently changed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "Config.h"

using namespace headscope;
using ::testing::HasSubstr;

namespace {
std::string allProblems(const Config& c) {
    std::string out;
    for (const auto& p : c.validate()) out += p + "\n";
    return out;
}
}  // namespace

TEST(Config, DemoIsValid) { EXPECT_TRUE(Config{}.validate().empty()); }

TEST(Config, IndivisibleDModelNamesTheHeadCountsThatWork) {
    Config c;
    c.d_model = 100;
    c.heads = 8;
    const std::string p = allProblems(c);
    EXPECT_THAT(p, HasSubstr("d_model 100 is not divisible by 8 heads"));
    EXPECT_THAT(p, HasSubstr("set d_k and d_v explicitly"));
    EXPECT_THAT(p, HasSubstr("20, 25, 50 or 100 heads"));
    c.d_k = 12;
    c.d_v = 12;
    EXPECT_TRUE(c.validate().empty()) << allProblems(c);
}

TEST(Config, KvHeadsMustDivideHeads) {
    Config c;
    c.kv_heads = 3;
    EXPECT_THAT(allProblems(c), HasSubstr("kv_heads 3 must divide heads 8"));
    c.kv_heads = 9;
    EXPECT_THAT(allProblems(c), HasSubstr("between 1 and heads"));
    c.kv_heads = 2;
    EXPECT_TRUE(c.validate().empty());
}

TEST(Config, RangesAreChecked) {
    Config c;
    c.d_model = 0;
    EXPECT_THAT(allProblems(c), HasSubstr("d_model 0 is out of range"));
    c = Config{};
    c.heads = 129;
    EXPECT_THAT(allProblems(c), HasSubstr("heads 129 is out of range"));
    c = Config{};
    c.d_k = -3;
    EXPECT_THAT(allProblems(c), HasSubstr("d_k -3"));
}

TEST(Config, InputMustHaveTokens) {
    Config c;
    c.text = "   ";
    EXPECT_THAT(allProblems(c), HasSubstr("no tokens"));
    c.text.clear();
    c.seq_len = 0;
    EXPECT_THAT(allProblems(c), HasSubstr("sequence length"));
    c.seq_len = 9000;
    EXPECT_THAT(allProblems(c), HasSubstr("at most 8192"));
}

TEST(Config, HugeSizesAreRefusedBeforeAnyAllocation) {
    Config c;
    c.d_model = 4096;
    c.heads = 128;
    c.text.clear();
    c.seq_len = 8192;
    EXPECT_THAT(allProblems(c), HasSubstr("GiB of memory"));
}

TEST(Config, WorkThatWouldFreezeTheProgramIsRefused) {
    Config c;
    c.d_model = 4096;
    c.heads = 1;  // d_k 4096: the spectra alone are ~5e11 multiply-adds
    EXPECT_THAT(allProblems(c), HasSubstr("billion multiply-adds"));
    EXPECT_THAT(allProblems(c), HasSubstr("use more heads"));
    c.heads = 64;  // d_k 64: fine
    EXPECT_TRUE(c.validate().empty()) << allProblems(c);
    c.d_model = 1600;  // the benchmark's large geometry stays allowed
    c.heads = 25;
    c.text.clear();
    c.seq_len = 1024;
    EXPECT_TRUE(c.validate().empty()) << allProblems(c);
    EXPECT_GT(estimatedMultiplyAdds(c, 1024, 1024), 1e10);
}

TEST(Config, BadNumbersAreRefused) {
    Config c;
    c.temperature = 0;
    EXPECT_THAT(allProblems(c), HasSubstr("temperature"));
    c = Config{};
    c.temperature = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THAT(allProblems(c), HasSubstr("temperature"));
    for (double t : {1e-300, 1e-4, 2e3}) {  // 1e-300 would turn the logits into infinities
        c = Config{};
        c.temperature = t;
        EXPECT_THAT(allProblems(c), HasSubstr("between 0.001 and 1000"));
    }
    c = Config{};
    c.init_sigma = 1e300;  // would overflow float weights
    EXPECT_THAT(allProblems(c), HasSubstr("at most 10"));
    c = Config{};
    c.padded_keys = {99};
    EXPECT_THAT(allProblems(c), HasSubstr("Padded key 99 does not exist"));
    c = Config{};
    c.rank_rtol = 2;
    EXPECT_THAT(allProblems(c), HasSubstr("rank tolerance"));
}

TEST(Config, DerivedHeadSizes) {
    Config c;
    c.d_model = 768;
    c.heads = 12;
    EXPECT_EQ(c.headDimK(), 64);
    EXPECT_EQ(c.headDimV(), 64);
    EXPECT_EQ(c.kvHeads(), 12);
    c.d_k = 32;
    EXPECT_EQ(c.headDimK(), 32);
    EXPECT_EQ(c.headDimV(), 64);
}

// A loaded model's tokenizer counts the tokens (a sentence pair's template included): the demo's
// words do not decide which padded keys exist, while the rest is still checked.
TEST(Config, AModelsTokensAreNotCountedInTheDemosWords) {
    Config c;
    c.text = "the cat";
    c.source_text = "sat on the mat";  // [CLS] the cat [SEP] sat on the mat [SEP]: 9 keys of a BERT
    c.padded_keys = {8};
    EXPECT_FALSE(c.validate(Config::Tokens::Demo).empty()) << "the demo counts 4 keys";
    EXPECT_TRUE(c.validate(Config::Tokens::OfModel).empty());
    c.temperature = 0;
    EXPECT_FALSE(c.validate(Config::Tokens::OfModel).empty());
}
