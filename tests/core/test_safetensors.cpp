// .safetensors reading and writing: round trips, dtype conversion, a real checkpoint,
// and hostile files that must each end in one clear IoError.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "TempDirTest.h"
#include "common/Bytes.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/Safetensors.h"

namespace fs = std::filesystem;
using headscope::io::IoError;
using headscope::io::readSafetensors;
using headscope::io::SafetensorsReader;
using headscope::io::Tensor;
using headscope::io::writeSafetensors;
using ::testing::HasSubstr;
using headscope::test::bitsOf;
using headscope::test::bytesOf;
using headscope::test::readFile;

namespace {

// A fresh directory under the system temp directory, removed after each test.
class SafetensorsTest : public TempDirTest {
protected:

    std::string writeFile(const std::string& bytes, const std::string& name = "file.safetensors") const {
        return TempDirTest::writeFile(bytes, name);
    }

    // The message of the IoError that reading `bytes` throws ("" when none).
    std::string errorReading(const std::string& bytes) const {
        const std::string file = writeFile(bytes);
        try {
            readSafetensors(file);
        } catch (const IoError& error) {
            return error.what();
        }
        return "";
    }

};

std::string u64(std::uint64_t value) { return bytesOf(std::vector<std::uint64_t>{value}); }

// 8-byte header length + header text + data.
std::string safetensorsFile(const std::string& header, const std::string& data) {
    return u64(header.size()) + header + data;
}

// Header with a single tensor "t".
std::string oneTensor(const std::string& dtype, const std::string& shape, const std::string& offsets) {
    return R"({"t": {"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "data_offsets": )" + offsets + "}}";
}

Tensor makeTensor(std::vector<std::int64_t> shape, std::vector<float> data) {
    Tensor tensor;
    tensor.shape = std::move(shape);
    tensor.data = std::move(data);
    return tensor;
}

}  // namespace

// ---- Round trips and well-formed files ---------------------------------------------

TEST_F(SafetensorsTest, RoundTripKeepsNamesShapesAndEveryBit) {
    const std::map<std::string, Tensor> tensors = {
        {"layers.0.weight", makeTensor({2, 3}, {1.5f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 0x1p-149f,
                                                 -std::numeric_limits<float>::infinity(), 3e38f})},
        {"bias", makeTensor({3}, {0.1f, 0.2f, 0.3f})},
        {"scalar", makeTensor({}, {42.0f})},
        {"empty", makeTensor({0, 4}, {})},
        {"unicode \u00e9", makeTensor({1, 1, 1}, {7.0f})},
    };
    writeSafetensors(path("t.safetensors"), tensors);
    const auto back = readSafetensors(path("t.safetensors"));
    ASSERT_EQ(back.size(), tensors.size());
    for (const auto& [name, tensor] : tensors) {
        ASSERT_EQ(back.count(name), 1u) << name;
        EXPECT_EQ(back.at(name).shape, tensor.shape) << name;
        ASSERT_EQ(back.at(name).data.size(), tensor.data.size()) << name;
        for (std::size_t i = 0; i < tensor.data.size(); ++i)
            EXPECT_EQ(bitsOf(back.at(name).data[i]), bitsOf(tensor.data[i])) << name << "[" << i << "]";
    }
}

TEST_F(SafetensorsTest, WriterPadsTheHeaderToEightBytesAndStoresF32) {
    writeSafetensors(path("t.safetensors"), {{"a", makeTensor({2}, {1.0f, 2.0f})}});
    const std::string bytes = readFile(path("t.safetensors"));
    std::uint64_t header_length;
    std::memcpy(&header_length, bytes.data(), 8);
    EXPECT_EQ(header_length % 8, 0u);
    EXPECT_EQ(bytes.size(), 8 + header_length + 8);
    EXPECT_THAT(bytes.substr(8, header_length), HasSubstr(R"("dtype":"F32")"));
    EXPECT_THAT(bytes.substr(8, header_length), HasSubstr(R"("data_offsets":[0,8])"));
}

TEST_F(SafetensorsTest, ReadsHandBuiltFileAndIgnoresMetadata) {
    const std::string header =
        R"({"__metadata__": {"format": "pt", "note": "[[[{{{"}, "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},)"
        R"( "b": {"shape": [2], "data_offsets": [16, 24], "dtype": "F32", "extra": true}})";
    writeFile(safetensorsFile(header, bytesOf(std::vector<float>{1, 2, 3, 4, 5, 6})));
    const auto tensors = readSafetensors(path("file.safetensors"));
    ASSERT_EQ(tensors.size(), 2u);
    EXPECT_EQ(tensors.at("w").data, (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(tensors.at("b").data, (std::vector<float>{5, 6}));
}

TEST_F(SafetensorsTest, ReaderShowsShapesAndDtypesBeforeReadingData) {
    const std::string header = R"({"x": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]},)"
                               R"( "ids": {"dtype": "I64", "shape": [1], "data_offsets": [6, 14]}})";
    writeFile(safetensorsFile(header, std::string(14, '\0')));
    SafetensorsReader reader(path("file.safetensors"));
    EXPECT_EQ(reader.names(), (std::vector<std::string>{"ids", "x"}));
    EXPECT_TRUE(reader.contains("x"));
    EXPECT_FALSE(reader.contains("y"));
    EXPECT_EQ(reader.shape("x"), (std::vector<std::int64_t>{3}));
    EXPECT_EQ(reader.dtype("ids"), "I64");
    EXPECT_EQ(reader.read("x").data, (std::vector<float>{0, 0, 0}));
    EXPECT_THROW(reader.shape("y"), IoError);
}

TEST_F(SafetensorsTest, ConvertsFloat64ToTheNearestFloat) {
    writeFile(safetensorsFile(oneTensor("F64", "[3]", "[0, 24]"), bytesOf(std::vector<double>{0.1, -2.5, 1e-40})));
    const auto tensors = readSafetensors(path("file.safetensors"));
    EXPECT_EQ(tensors.at("t").data, (std::vector<float>{static_cast<float>(0.1), -2.5f, static_cast<float>(1e-40)}));
}

TEST_F(SafetensorsTest, Float64TooLargeForFloat32IsAnErrorNamingTheTensor) {
    const std::string file = writeFile(safetensorsFile(oneTensor("F64", "[2]", "[0, 16]"), bytesOf(std::vector<double>{1, -1e39})));
    try {
        readSafetensors(file);
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("'t'"));
        EXPECT_THAT(error.what(), HasSubstr("float32 range"));
        EXPECT_THAT(error.what(), HasSubstr("index 1"));
    }
}

TEST_F(SafetensorsTest, ConvertsFloat16Exactly) {
    const std::vector<std::uint16_t> halves = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x03FF, 0x8000, 0x3555, 0x7C00, 0xFC00, 0x7E00};
    writeFile(safetensorsFile(oneTensor("F16", "[10]", "[0, 20]"), bytesOf(halves)));
    const std::vector<float> values = readSafetensors(path("file.safetensors")).at("t").data;
    EXPECT_EQ(values[0], 1.0f);
    EXPECT_EQ(values[1], -2.0f);
    EXPECT_EQ(values[2], 65504.0f);             // largest half
    EXPECT_EQ(values[3], 0x1p-24f);             // smallest subnormal half
    EXPECT_EQ(values[4], 1023 * 0x1p-24f);      // largest subnormal half
    EXPECT_EQ(bitsOf(values[5]), 0x80000000u);  // -0
    EXPECT_EQ(values[6], 0.333251953125f);      // nearest half to 1/3
    EXPECT_EQ(values[7], std::numeric_limits<float>::infinity());
    EXPECT_EQ(values[8], -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(values[9]));
}

TEST_F(SafetensorsTest, ConvertsBfloat16Exactly) {
    const std::vector<std::uint16_t> bf16 = {0x3F80, 0xC0A0, 0x7F7F, 0x0001, 0x3EAB, 0xFF80, 0x7FC0};
    writeFile(safetensorsFile(oneTensor("BF16", "[7]", "[0, 14]"), bytesOf(bf16)));
    const std::vector<float> values = readSafetensors(path("file.safetensors")).at("t").data;
    EXPECT_EQ(values[0], 1.0f);
    EXPECT_EQ(values[1], -5.0f);
    EXPECT_EQ(values[2], 0x1.FEp127f);  // largest finite bfloat16
    EXPECT_EQ(values[3], 0x1p-133f);    // smallest subnormal bfloat16
    EXPECT_EQ(values[4], 0.333984375f);
    EXPECT_EQ(values[5], -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(values[6]));
}

TEST_F(SafetensorsTest, ReadsRealGpt2CheckpointWhenPresent) {
    const fs::path model = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / "nano-sort/model.safetensors";
    if (!fs::exists(model)) GTEST_SKIP() << "real checkpoint not found at " << model;
    const auto tensors = readSafetensors(model.string());
    ASSERT_EQ(tensors.count("h.0.attn.c_attn.weight"), 1u);
    EXPECT_EQ(tensors.at("h.0.attn.c_attn.weight").shape, (std::vector<std::int64_t>{48, 144}));
    EXPECT_EQ(tensors.at("h.0.attn.c_attn.weight").data.size(), 48u * 144u);
    EXPECT_EQ(tensors.count("__metadata__"), 0u);
    for (const auto& [name, tensor] : tensors)
        for (const float value : tensor.data) ASSERT_TRUE(std::isfinite(value)) << name;
}

// ---- Hostile and broken files ------------------------------------------------------

TEST_F(SafetensorsTest, MissingFileIsAnErrorNamingTheFile) {
    try {
        readSafetensors(path("absent.safetensors"));
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("absent.safetensors"));
        EXPECT_THAT(error.what(), HasSubstr("does not exist"));
    }
}

TEST_F(SafetensorsTest, DirectoryIsAnError) {
    try {
        readSafetensors(dir_.string());
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("directory"));
    }
}

TEST_F(SafetensorsTest, FileShorterThanEightBytesIsAnError) {
    EXPECT_THAT(errorReading(""), HasSubstr("too short"));
    EXPECT_THAT(errorReading(std::string("\x02\0\0\0", 4)), HasSubstr("too short"));
}

TEST_F(SafetensorsTest, HeaderLengthPastTheEndOfTheFileIsAnError) {
    EXPECT_THAT(errorReading(u64(100) + "{}"), HasSubstr("past the end"));
    EXPECT_THAT(errorReading(u64(~0ULL) + "{}"), HasSubstr("past the end"));
}

TEST_F(SafetensorsTest, HeaderLongerThan100MegabytesIsRefusedWithoutReadingIt) {
    writeFile(u64(150'000'000));
    fs::resize_file(path("file.safetensors"), 150'000'100);  // sparse: nothing is really written
    try {
        readSafetensors(path("file.safetensors"));
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("100 MB"));
    }
}

TEST_F(SafetensorsTest, HeaderThatIsNotAJsonObjectIsAnError) {
    EXPECT_THAT(errorReading(safetensorsFile("{\"a\": ", "")), HasSubstr("not valid JSON"));
    EXPECT_THAT(errorReading(safetensorsFile("", "")), HasSubstr("not valid JSON"));
    EXPECT_THAT(errorReading(safetensorsFile("{\"\xFF\": 1}", "")), HasSubstr("not valid JSON"));
    EXPECT_THAT(errorReading(safetensorsFile("[1, 2]", "")), HasSubstr("not a JSON object"));
    EXPECT_THAT(errorReading(safetensorsFile("42", "")), HasSubstr("not a JSON object"));
}

TEST_F(SafetensorsTest, AbsurdlyDeepJsonIsRefusedBeforeParsing) {
    const std::string deep = "{\"t\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    EXPECT_THAT(errorReading(safetensorsFile(deep, "")), HasSubstr("levels deep"));
}

TEST_F(SafetensorsTest, EntriesWithMissingOrWronglyTypedFieldsAreErrorsNamingTheTensor) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"t": 5})", "not described by a JSON object"},
        {R"({"t": {"shape": [1], "data_offsets": [0, 4]}})", "no \"dtype\""},
        {R"({"t": {"dtype": "F32", "data_offsets": [0, 4]}})", "no \"shape\""},
        {R"({"t": {"dtype": "F32", "shape": [1]}})", "no \"data_offsets\""},
        {R"({"t": {"dtype": 32, "shape": [1], "data_offsets": [0, 4]}})", "not a string"},
        {oneTensor("F32", "1", "[0, 4]"), "not a list"},
        {oneTensor("F32", "{\"a\": 1}", "[0, 4]"), "not a list"},
        {oneTensor("F32", "[1.0]", "[0, 4]"), "not an integer"},
        {oneTensor("F32", "[\"1\"]", "[0, 4]"), "not an integer"},
        {oneTensor("F32", "[null]", "[0, 4]"), "not an integer"},
        {oneTensor("F32", "[1]", "[0]"), "not a [begin, end] pair"},
        {oneTensor("F32", "[1]", "[0, 4, 8]"), "not a [begin, end] pair"},
        {oneTensor("F32", "[1]", "{\"begin\": 0}"), "not a [begin, end] pair"},
        {oneTensor("F32", "[1]", "[0, 4.0]"), "not an integer"},
    };
    for (const auto& [header, word] : cases) {
        const std::string message = errorReading(safetensorsFile(header, std::string(4, '\0')));
        EXPECT_THAT(message, HasSubstr(word)) << header;
        EXPECT_THAT(message, HasSubstr("'t'")) << header;
    }
}

TEST_F(SafetensorsTest, NegativeAndOverflowingDimensionsAreErrors) {
    const std::string data(8, '\0');
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[-1, 2]", "[0, 8]"), data)), HasSubstr("negative"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[18446744073709551615]", "[0, 8]"), data)), HasSubstr("too large"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[99999999999999999999999]", "[0, 8]"), data)),
                HasSubstr("not an integer"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[4294967296, 4294967296]", "[0, 8]"), data)),
                HasSubstr("too many elements"));
    // Fits int64 as a count, not as a byte count.
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F64", "[2305843009213693952]", "[0, 8]"), data)), HasSubstr("needs more than 2^64 bytes"));
}

TEST_F(SafetensorsTest, BadDataOffsetsAreErrors) {
    const std::string data(16, '\0');
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[1]", "[-4, 0]"), data)), HasSubstr("negative"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[1]", "[8, 4]"), data)), HasSubstr("begin after end"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[1]", "[16, 20]"), data)), HasSubstr("beyond the 16 data bytes"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[1]", "[0, 18446744073709551615]"), data)),
                HasSubstr("too large"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F32", "[3]", "[0, 8]"), data)), HasSubstr("needs 12 bytes"));
    EXPECT_THAT(errorReading(safetensorsFile(oneTensor("F16", "[3]", "[0, 8]"), data)), HasSubstr("needs 6 bytes"));
}

TEST_F(SafetensorsTest, OverlappingTensorDataIsAnError) {
    const std::string header = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                               R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
    EXPECT_THAT(errorReading(safetensorsFile(header, std::string(12, '\0'))), HasSubstr("overlap"));
}

TEST_F(SafetensorsTest, UnsupportedDtypeIsAnErrorNamingTheTensor) {
    for (const auto& [dtype, bytes] : std::vector<std::pair<std::string, int>>{
             {"I64", 8}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"I32", 4}, {"COMPLEX", 3}}) {
        const std::string message = errorReading(safetensorsFile(R"({"position_ids": {"dtype": ")" + dtype +
                                                                     R"(", "shape": [1], "data_offsets": [0, )" +
                                                                     std::to_string(bytes) + "]}}",
                                                                 std::string(static_cast<std::size_t>(bytes), '\0')));
        EXPECT_THAT(message, HasSubstr("'position_ids'")) << dtype;
        EXPECT_THAT(message, HasSubstr("cannot be converted")) << dtype;
    }
}

TEST_F(SafetensorsTest, UnknownDtypeCannotClaimMoreElementsThanItsBytesHold) {
    // A dtype newer than this reader (here "F4") keeps its shape visible, as long as its
    // bytes could hold the elements at one bit each ...
    const std::string fits = errorReading(safetensorsFile(oneTensor("F4", "[4, 4]", "[0, 8]"), std::string(8, '\0')));
    EXPECT_THAT(fits, HasSubstr("cannot be converted"));
    // ... but a 200-byte file must not describe a 715827881 x 715827881 layer (the
    // nn.MultiheadAttention loader would then search the divisors of that number).
    const std::string huge = errorReading(safetensorsFile(oneTensor("Q7", "[715827881, 715827881]", "[0, 0]"), ""));
    EXPECT_THAT(huge, HasSubstr("unknown dtype 'Q7' claims more elements than its 0 data bytes can hold"));
}

TEST_F(SafetensorsTest, MessagesQuoteFileContentShortenedAndEscaped) {
    // A 1 MB tensor name with a newline, an escape sequence and invalid UTF-8 in it.
    const std::string name = "evil\\n\\u001b[31m" + std::string(1 << 20, 'x');
    const std::string message = errorReading(safetensorsFile(R"({")" + name + R"(": 5})", ""));
    EXPECT_THAT(message, HasSubstr("'evil\\n\\x1b[31mxxx"));
    EXPECT_THAT(message, HasSubstr("...' (1048586 bytes)"));
    EXPECT_LT(message.size(), 400u) << message.size();
    EXPECT_EQ(message.find('\n'), std::string::npos);
    EXPECT_EQ(message.find('\x1b'), std::string::npos);
}

TEST_F(SafetensorsTest, InvalidJsonIsDescribedWithoutTheLibrarysWords) {
    const std::string message = errorReading(safetensorsFile("{\"a\": tru}", ""));
    EXPECT_THAT(message, HasSubstr("its header is not valid JSON (error at byte"));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("json.exception")));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("parse_error")));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("tru")));  // file content is not echoed
}

TEST_F(SafetensorsTest, EveryTruncationOfAValidFileIsAnIoError) {
    writeSafetensors(path("valid.safetensors"), {{"a", makeTensor({2, 2}, {1, 2, 3, 4})}, {"b", makeTensor({1}, {5})}});
    const std::string bytes = readFile(path("valid.safetensors"));
    for (std::size_t length = 0; length < bytes.size(); ++length)
        EXPECT_FALSE(errorReading(bytes.substr(0, length)).empty()) << "length " << length;
}

TEST_F(SafetensorsTest, CorruptingAnyHeaderByteGivesValidTensorsOrAnIoError) {
    writeSafetensors(path("valid.safetensors"), {{"a", makeTensor({2, 2}, {1, 2, 3, 4})}, {"b", makeTensor({1}, {5})}});
    const std::string bytes = readFile(path("valid.safetensors"));
    const std::size_t header_end = bytes.size() - 20;
    for (std::size_t at = 0; at < header_end; ++at) {
        for (const char value : {'\0', '\xFF', '9', '[', '{', '"', '-', ','}) {
            std::string corrupt = bytes;
            corrupt[at] = value;
            const std::string file = writeFile(corrupt);
            try {
                for (const auto& [name, tensor] : readSafetensors(file))
                    EXPECT_EQ(static_cast<std::int64_t>(tensor.data.size()), tensor.size()) << name;
            } catch (const IoError&) {
            }
        }
    }
}

// ---- Writing errors ----------------------------------------------------------------

TEST_F(SafetensorsTest, WritingRejectsReservedNamesMismatchedDataAndBadUtf8) {
    EXPECT_THROW(writeSafetensors(path("t.safetensors"), {{"__metadata__", makeTensor({1}, {1})}}), IoError);
    EXPECT_THROW(writeSafetensors(path("t.safetensors"), {{"a", makeTensor({2}, {1})}}), IoError);
    EXPECT_THROW(writeSafetensors(path("t.safetensors"), {{"a", makeTensor({-1}, {1})}}), IoError);
    EXPECT_THROW(writeSafetensors(path("t.safetensors"), {{"bad \xFF name", makeTensor({1}, {1})}}), IoError);
    EXPECT_FALSE(fs::exists(path("t.safetensors")));
    EXPECT_THROW(writeSafetensors(path("no/such/dir/t.safetensors"), {{"a", makeTensor({1}, {1})}}), IoError);
}
