// io/Quote.h: how file content and paths appear in messages.
#include <gtest/gtest.h>

#include "io/Quote.h"

using headscope::io::quote;
using headscope::io::quotePath;

TEST(Quote, PrintableTextIsKeptInSingleQuotes) {
    EXPECT_EQ(quote("in_proj_weight"), "'in_proj_weight'");
    EXPECT_EQ(quote(""), "''");
    EXPECT_EQ(quote("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"), "'caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac'");  // valid UTF-8 stays
}

TEST(Quote, ControlCharactersQuotesAndInvalidBytesAreEscaped) {
    EXPECT_EQ(quote("a\nb\r\tc"), "'a\\nb\\r\\tc'");
    EXPECT_EQ(quote("it's a\\b"), "'it\\'s a\\\\b'");
    EXPECT_EQ(quote(std::string("\x1b[31m\x00\x7f", 7)), "'\\x1b[31m\\x00\\x7f'");
    EXPECT_EQ(quote("\xff\xc3"), "'\\xff\\xc3'");                   // invalid and truncated UTF-8
    EXPECT_EQ(quote("\xc0\xaf"), "'\\xc0\\xaf'");                   // overlong encoding of '/'
    EXPECT_EQ(quote("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");          // a UTF-16 surrogate
    EXPECT_EQ(quote("\xe2\x80\xa8\xe2\x80\xae"), "'\\xe2\\x80\\xa8\\xe2\\x80\\xae'");  // line separator, RTL override
    EXPECT_EQ(quote("\xc2\x85"), "'\\xc2\\x85'");                   // C1 control (NEL)
}

TEST(Quote, LongTextIsShortenedAndSaysHowLongItWas) {
    const std::string quoted = quote(std::string(1 << 20, 'x'), 10);
    EXPECT_EQ(quoted, "'xxxxxxxxxx...' (1048576 bytes)");
    EXPECT_EQ(quote(std::string(10, 'x'), 10), "'xxxxxxxxxx'");
    // A multi-byte character is never cut in half.
    EXPECT_EQ(quote("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "'\xc3\xa9\xc3\xa9...' (6 bytes)");
}

TEST(Quote, LongPathsKeepTheirBeginningAndTheFileName) {
    const std::string path = "/home/student/" + std::string(500, 'd') + "/weights.safetensors";
    const std::string quoted = quotePath(path, 60);
    EXPECT_EQ(quoted.rfind("'/home/student/ddd", 0), 0u) << quoted;
    EXPECT_NE(quoted.find("...ddd"), std::string::npos) << quoted;
    EXPECT_EQ(quoted.substr(quoted.size() - 21), "/weights.safetensors'");
    EXPECT_LE(quoted.size(), 70u);
    EXPECT_EQ(quotePath("/tmp/x.npy"), "'/tmp/x.npy'");
    EXPECT_EQ(quotePath("/tmp/new\nline.npy"), "'/tmp/new\\nline.npy'");
}
