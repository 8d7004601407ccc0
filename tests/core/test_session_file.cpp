// Session files round-trip exactly; bad files are one clear error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "Analysis.h"
#include "io/IoError.h"
#include "io/SessionFile.h"

using namespace headscope;
using ::testing::HasSubstr;

namespace {
std::string errorOf(const std::string& json) {
    try {
        io::configFromJson(json);
    } catch (const io::IoError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(SessionFile, RoundTripReproducesTheSameNumbers) {
    Config c;
    c.d_model = 48;
    c.heads = 6;
    c.d_k = 5;
    c.kv_heads = 3;
    c.text = "Ünïcode \"quotes\" and\nnewlines";
    c.source_text = "a source";
    c.mask = MaskKind::Causal;
    c.padded_keys = {1};
    c.scale = false;
    c.temperature = 0.123456789012345;
    c.seed = 18446744073709551615ULL;
    c.init = InitKind::Normal;
    c.init_sigma = 0.1;
    c.bias = false;
    c.rank_rtol = 1e-9;
    const auto path = std::filesystem::temp_directory_path() / "headscope_roundtrip.headscope.json";
    io::saveSession(path.string(), c);
    const Config back = io::loadSession(path.string());
    std::filesystem::remove(path);
    EXPECT_EQ(back, c);
    const Analysis a = analyze(c, false), b = analyze(back, false);
    for (int i = 0; i < c.heads; ++i) EXPECT_EQ(a.results.heads[i].weights, b.results.heads[i].weights);
    EXPECT_EQ(a.results.output, b.results.output);
}

TEST(SessionFile, MissingKeysKeepDefaults) {
    const Config c = io::configFromJson(R"({"format": "headscope-session", "version": 1, "heads": 4})");
    EXPECT_EQ(c.heads, 4);
    EXPECT_EQ(c.d_model, Config{}.d_model);
    EXPECT_EQ(c.text, Config{}.text);
}

TEST(SessionFile, BadFilesAreOneClearError) {
    EXPECT_THAT(errorOf("{not json"), HasSubstr("not valid JSON"));
    EXPECT_THAT(errorOf("[1, 2]"), HasSubstr("JSON object"));
    EXPECT_THAT(errorOf(R"({"version": 1})"), HasSubstr("not a HeadScope session"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 2})"), HasSubstr("version"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "hedas": 4})"),
                HasSubstr("unknown session key 'hedas'"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "heads": "four"})"),
                HasSubstr("\"heads\" must be a whole number"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "heads": 1e20})"), HasSubstr("heads"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "mask": "diagonal"})"), HasSubstr("mask"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "seed": -1})"), HasSubstr("seed"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "text": 5})"), HasSubstr("wrong type"));
    EXPECT_THAT(errorOf(std::string(100000, '[')), HasSubstr("JSON"));
    EXPECT_THAT(errorOf(R"({"format": 1, "version": 1})"), HasSubstr("not a HeadScope session"));
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "temperature": 1e999})"),
                HasSubstr("not valid JSON"));
}

TEST(SessionFile, InvalidJsonIsDescribedInOurWordsNotTheLibrarys) {
    const std::string message = errorOf("{\"format\": headscope}");
    EXPECT_EQ(message, "the session is not valid JSON (error at byte 12 of 21)");
    EXPECT_EQ(errorOf("{\"format\": "), "the session is not valid JSON (it ends early, after 11 bytes)");
}

TEST(SessionFile, MillionsOfNestedBracketsAreRefusedBeforeParsing) {
    // Parsing 4 million '[' took seconds and hundreds of MB; the nesting check is one pass.
    const std::string message = errorOf(R"({"format": "headscope-session", "text": )" + std::string(4 << 20, '['));
    EXPECT_EQ(message, "the session nests JSON more than 64 levels deep");
    // Brackets inside strings are text, not nesting.
    EXPECT_EQ(errorOf(R"({"format": "headscope-session", "version": 1, "text": ")" + std::string(1000, '[') + "\"}"), "");
}

TEST(SessionFile, FileContentInMessagesIsShortenedAndEscaped) {
    const std::string key = "\\u001b[2J\\n" + std::string(1 << 20, 'k');  // JSON escapes: ESC, newline
    const std::string message = errorOf(R"({"format": "headscope-session", "version": 1, ")" + key + R"(": 1})");
    EXPECT_THAT(message, HasSubstr("unknown session key '\\x1b[2J\\nkkk"));
    EXPECT_LT(message.size(), 200u);
    EXPECT_EQ(message.find('\n'), std::string::npos);
    EXPECT_EQ(message.find('\x1b'), std::string::npos);
    EXPECT_THAT(errorOf(R"({"format": "headscope-session", "version": 1, "mask": "diag\tonal"})"),
                HasSubstr("must be \"none\" or \"causal\", not 'diag\\tonal'"));
}

TEST(SessionFile, MissingFileIsAnErrorNamingThePathOnce) {
    const std::string path = "/nonexistent/dir/x.headscope.json";
    try {
        io::loadSession(path);
        FAIL() << "no IoError";
    } catch (const io::IoError& e) {
        const std::string message = e.what();
        EXPECT_EQ(message, "cannot read session file '" + path + "': the file does not exist");
    }
}

TEST(SessionFile, ABadFileNamesItsPathOnceAndTheProblem) {
    const auto path = std::filesystem::temp_directory_path() / "headscope_bad.headscope.json";
    std::ofstream(path) << R"({"format": "headscope-session", "version": 1, "heads": "four"})";
    try {
        io::loadSession(path.string());
        FAIL() << "no IoError";
    } catch (const io::IoError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot read session file '" + path.string() + "': session key \"heads\" must be a whole number");
    }
    std::filesystem::remove(path);
}
