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
                HasSubstr("unknown session key \"hedas\""));
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

TEST(SessionFile, MissingFileIsAnError) {
    EXPECT_THROW(io::loadSession("/nonexistent/dir/x.headscope.json"), io::IoError);
}
