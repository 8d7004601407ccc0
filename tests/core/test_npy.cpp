// .npy reading and writing: round trips, files written by NumPy, and hostile files that
// must each end in one clear IoError.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "TempDirTest.h"
#include "common/Bytes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/Npy.h"

namespace fs = std::filesystem;
using headscope::io::IoError;
using headscope::io::readNpy;
using headscope::io::Tensor;
using headscope::io::writeNpy;
using ::testing::HasSubstr;
using headscope::test::bitsOf;
using headscope::test::bytesOf;
using headscope::test::readFile;

namespace {

const fs::path kDataDir = fs::path(HEADSCOPE_TEST_DATA_DIR) / "npy";

// A fresh directory under the system temp directory, removed after each test.
class NpyTest : public TempDirTest {
protected:

    std::string writeFile(const std::string& bytes, const std::string& name = "file.npy") const {
        return TempDirTest::writeFile(bytes, name);
    }

    // The message of the IoError that reading `bytes` as .npy throws ("" when none).
    std::string errorReading(const std::string& bytes) const {
        const std::string file = writeFile(bytes);
        try {
            readNpy(file);
        } catch (const IoError& error) {
            return error.what();
        }
        return "";
    }

};

// magic + version + header length + dict padded with spaces and '\n' to 64 bytes + data.
std::string npyFile(const std::string& dict, const std::string& data, int major = 1) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::string header = dict;
    header.append(63 - (prefix + header.size()) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
    const std::uint32_t length = static_cast<std::uint32_t>(header.size());
    file += bytesOf(length).substr(0, prefix - 8);
    return file + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& order = "False") {
    return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

void expectBitIdentical(const std::vector<float>& expected, const std::vector<float>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(bitsOf(expected[i]), bitsOf(actual[i])) << "index " << i;
}

// The values tests/data/make_mha_reference.py stores in npy/ref_f4.npy, shape (3, 4).
const std::vector<float> kReferenceF4 = {0.0f,     -1.5f, 3.25f,          1e-8f,  65504.0f, -0.0f,
                                         1.0f / 3, 7.0f,  -0x1p-149f,     3.4028234663852886e38f,
                                         100.0f,   -0.125f};

}  // namespace

// ---- Round trips and files from NumPy ----------------------------------------------

TEST_F(NpyTest, RoundTripKeepsEveryBitIncludingNanPayloadSignedZeroAndSubnormals) {
    Tensor tensor;
    tensor.shape = {2, 3};
    float nan_with_payload;
    const std::uint32_t nan_bits = 0x7FC01234u;
    std::memcpy(&nan_with_payload, &nan_bits, sizeof nan_bits);
    tensor.data = {nan_with_payload, -0.0f, std::numeric_limits<float>::infinity(), 0x1p-149f, -3.5f, 1e30f};
    writeNpy(path("t.npy"), tensor);
    const Tensor back = readNpy(path("t.npy"));
    EXPECT_EQ(back.shape, tensor.shape);
    expectBitIdentical(tensor.data, back.data);
}

TEST_F(NpyTest, RoundTripHandlesZeroDimOneDimEmptyAndThreeDimShapes) {
    for (const std::vector<std::int64_t>& shape :
         std::vector<std::vector<std::int64_t>>{{}, {5}, {0, 3}, {3, 0}, {2, 3, 4}}) {
        Tensor tensor;
        tensor.shape = shape;
        tensor.data.resize(static_cast<std::size_t>(tensor.size()));
        for (std::size_t i = 0; i < tensor.data.size(); ++i) tensor.data[i] = 0.5f * static_cast<float>(i) - 3.0f;
        writeNpy(path("t.npy"), tensor);
        const Tensor back = readNpy(path("t.npy"));
        EXPECT_EQ(back.shape, shape);
        expectBitIdentical(tensor.data, back.data);
    }
}

TEST_F(NpyTest, WriterProducesTheSameBytesAsNumpySave) {
    Tensor tensor;
    tensor.shape = {3, 4};
    tensor.data = kReferenceF4;
    writeNpy(path("mine.npy"), tensor);
    const std::string numpy_bytes = readFile((kDataDir / "ref_f4.npy").string());
    ASSERT_FALSE(numpy_bytes.empty()) << "missing reference file " << kDataDir / "ref_f4.npy";
    EXPECT_EQ(readFile(path("mine.npy")), numpy_bytes);
}

TEST_F(NpyTest, WriterAlignsHeaderTo64BytesForEveryShape) {
    for (const std::vector<std::int64_t>& shape : std::vector<std::vector<std::int64_t>>{
             {}, {1}, {7, 3}, {12345678901, 0}, std::vector<std::int64_t>(30, 1), std::vector<std::int64_t>(25000, 1)}) {
        Tensor tensor;
        tensor.shape = shape;
        tensor.data.assign(static_cast<std::size_t>(tensor.size()), 1.0f);
        writeNpy(path("t.npy"), tensor);
        const std::string bytes = readFile(path("t.npy"));
        const int major = bytes[6];
        std::size_t header_end = 10 + (static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
        if (major == 2) header_end += 2 + (static_cast<std::size_t>(static_cast<unsigned char>(bytes[10])) << 16);
        EXPECT_EQ(major, shape.size() == 25000 ? 2 : 1);
        EXPECT_EQ(header_end % 64, 0u);
        EXPECT_EQ(bytes[header_end - 1], '\n');
        EXPECT_EQ(bytes.size(), header_end + 4 * tensor.data.size());
        EXPECT_EQ(readNpy(path("t.npy")).shape, shape);
    }
}

TEST_F(NpyTest, ReadsFloat32FileWrittenByNumpy) {
    const Tensor tensor = readNpy((kDataDir / "ref_f4.npy").string());
    EXPECT_EQ(tensor.shape, (std::vector<std::int64_t>{3, 4}));
    expectBitIdentical(kReferenceF4, tensor.data);
}

TEST_F(NpyTest, ReadsBigEndianFloat64FileWrittenByNumpy) {
    const Tensor tensor = readNpy((kDataDir / "ref_be_f8.npy").string());
    EXPECT_EQ(tensor.shape, (std::vector<std::int64_t>{2, 2}));
    expectBitIdentical({1.0f, -2.5f, static_cast<float>(0.1), static_cast<float>(3e38)}, tensor.data);
}

TEST_F(NpyTest, RejectsFortranOrderFileWrittenByNumpy) {
    try {
        readNpy((kDataDir / "ref_f8_fortran.npy").string());
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("Fortran"));
        EXPECT_THAT(error.what(), HasSubstr("ref_f8_fortran.npy"));
    }
}

TEST_F(NpyTest, ReadsHandBuiltFilesOfEveryDtypeAndByteOrder) {
    const std::vector<double> values = {1.5, -0.25, 1e-3, 12345.0};
    const std::vector<float> expected = {1.5f, -0.25f, static_cast<float>(1e-3), 12345.0f};
    std::vector<float> as_float(expected);
    for (const bool big : {false, true}) {
        writeFile(npyFile(dict(big ? ">f4" : "<f4", "(2, 2)"), bytesOf(as_float, big)));
        expectBitIdentical(expected, readNpy(path("file.npy")).data);
        writeFile(npyFile(dict(big ? ">f8" : "<f8", "(4,)"), bytesOf(values, big)));
        expectBitIdentical(expected, readNpy(path("file.npy")).data);
    }
}

TEST_F(NpyTest, ReadsVersion2And3Headers) {
    for (const int major : {2, 3}) {
        writeFile(npyFile(dict("<f4", "(3,)"), bytesOf(std::vector<float>{1, 2, 3}), major));
        const Tensor tensor = readNpy(path("file.npy"));
        EXPECT_EQ(tensor.shape, (std::vector<std::int64_t>{3}));
        expectBitIdentical({1, 2, 3}, tensor.data);
    }
}

TEST_F(NpyTest, AcceptsAnyKeyOrderDoubleQuotesAndPython2LongSuffix) {
    writeFile(npyFile("{\"shape\": (2L, 1L), \"fortran_order\": False, \"descr\": \"<f4\"}",
                      bytesOf(std::vector<float>{4, 5})));
    const Tensor tensor = readNpy(path("file.npy"));
    EXPECT_EQ(tensor.shape, (std::vector<std::int64_t>{2, 1}));
    expectBitIdentical({4, 5}, tensor.data);
}

TEST_F(NpyTest, MatrixOverloadWritesRowMajorCOrder) {
    Eigen::MatrixXf matrix(2, 3);
    matrix << 1, 2, 3, 4, 5, 6;
    writeNpy(path("m.npy"), matrix);
    const Tensor tensor = readNpy(path("m.npy"));
    EXPECT_EQ(tensor.shape, (std::vector<std::int64_t>{2, 3}));
    expectBitIdentical({1, 2, 3, 4, 5, 6}, tensor.data);
    EXPECT_EQ(headscope::io::toMatrix(tensor), matrix);
}

TEST_F(NpyTest, Float64TooLargeForFloat32IsAnError) {
    EXPECT_THAT(errorReading(npyFile(dict("<f8", "(2,)"), bytesOf(std::vector<double>{1.0, 1e300}))),
                HasSubstr("float32 range"));
}

TEST_F(NpyTest, Float64InfinityAndNanStayInfinityAndNan) {
    writeFile(npyFile(dict("<f8", "(2,)"), bytesOf(std::vector<double>{-INFINITY, NAN})));
    const Tensor tensor = readNpy(path("file.npy"));
    EXPECT_TRUE(std::isinf(tensor.data[0]) && tensor.data[0] < 0);
    EXPECT_TRUE(std::isnan(tensor.data[1]));
}

// ---- Hostile and broken files ------------------------------------------------------

TEST_F(NpyTest, MissingFileIsAnErrorNamingTheFile) {
    try {
        readNpy(path("absent.npy"));
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("absent.npy"));
        EXPECT_THAT(error.what(), HasSubstr("does not exist"));
    }
}

TEST_F(NpyTest, DirectoryIsAnError) { EXPECT_THROW(readNpy(dir_.string()), IoError); }

TEST_F(NpyTest, FileShorterThanThePreambleIsAnError) {
    EXPECT_THAT(errorReading(""), HasSubstr("too short"));
    EXPECT_THAT(errorReading(std::string("\x93NUMPY\x01", 7)), HasSubstr("too short"));
}

TEST_F(NpyTest, BadMagicIsAnError) {
    std::string bytes = npyFile(dict("<f4", "(1,)"), bytesOf(1.0f));
    bytes[1] = 'X';
    EXPECT_THAT(errorReading(bytes), HasSubstr("magic"));
}

TEST_F(NpyTest, UnsupportedVersionIsAnError) {
    std::string bytes = npyFile(dict("<f4", "(1,)"), bytesOf(1.0f));
    bytes[6] = 4;
    EXPECT_THAT(errorReading(bytes), HasSubstr("version 4.0"));
    bytes[6] = 1;
    bytes[7] = 1;
    EXPECT_THAT(errorReading(bytes), HasSubstr("version 1.1"));
}

TEST_F(NpyTest, HeaderLengthPastTheEndOfTheFileIsAnError) {
    std::string bytes = npyFile(dict("<f4", "(1,)"), bytesOf(1.0f));
    bytes[8] = '\xFF';
    bytes[9] = '\xFF';
    EXPECT_THAT(errorReading(bytes), HasSubstr("past the end"));
    std::string v2 = npyFile(dict("<f4", "(1,)"), bytesOf(1.0f), 2);
    v2[11] = '\x7F';  // about 2 GB
    EXPECT_THAT(errorReading(v2), HasSubstr("past the end"));
}

TEST_F(NpyTest, HugeHeaderIsRefusedBeforeParsing) {
    const std::string big_dict = dict("<f4", "(1,)") + std::string(2'000'000, ' ');
    EXPECT_THAT(errorReading(npyFile(big_dict, bytesOf(1.0f), 2)), HasSubstr("exceeds"));
}

TEST_F(NpyTest, UnparsableHeaderDictionariesAreErrors) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"not a dict", "header"},
        {"", "header"},
        {"{'descr': '<f4', 'fortran_order': False}", "lacks the key 'shape'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unexpected key"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "twice"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}", "header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", "not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", "not a tuple"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", "True or False"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", "structured"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}", "header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}", "not an integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing", "after the closing"},
        {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", "escape"},
        {std::string("{'descr': '<f4',") + '\0' + " 'fortran_order': False, 'shape': (1,)}", "header"},
    };
    for (const auto& [header, word] : cases)
        EXPECT_THAT(errorReading(npyFile(header, bytesOf(1.0f))), HasSubstr(word)) << header;
}

TEST_F(NpyTest, AHeaderKeyOfAMegabyteGivesAShortEscapedMessage) {
    // Within the 1 MB header limit, a key of nearly 1 MB with a newline, an escape
    // sequence and invalid UTF-8: the message quotes it shortened and escaped, one line.
    const std::string key = "k\n\x1b[2J\xff" + std::string(1'000'000, 'x');
    const std::string message =
        errorReading(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), '" + key + "': 1}", bytesOf(1.0f), 2));
    EXPECT_THAT(message, HasSubstr("it has the unexpected key 'k\\n\\x1b[2J\\xffxxx"));
    EXPECT_THAT(message, HasSubstr("...' (1000007 bytes)"));
    EXPECT_LT(message.size(), 300u);
    EXPECT_EQ(message.find('\n'), std::string::npos);
    EXPECT_EQ(message.find('\x1b'), std::string::npos);
    EXPECT_EQ(message.find('\xff'), std::string::npos);
}

TEST_F(NpyTest, UnsupportedDtypeIsAnError) {
    for (const std::string descr : {"<i4", "|u1", "<f2", "<c8", "=f4", "O"})
        EXPECT_THAT(errorReading(npyFile(dict(descr, "(1,)"), bytesOf(1.0f))), HasSubstr("not supported")) << descr;
}

TEST_F(NpyTest, NegativeDimensionIsAnError) {
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(-1, 2)"), "")), HasSubstr("negative"));
}

TEST_F(NpyTest, DimensionsThatOverflowAreErrorsNotAllocations) {
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(99999999999999999999,)"), "")), HasSubstr("too large"));
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(4294967296, 4294967296)"), "")), HasSubstr("64-bit"));
    // Fits int64 as a count but not as a byte count, or simply far more than the file holds.
    EXPECT_THAT(errorReading(npyFile(dict("<f8", "(2305843009213693952, 2)"), "")), HasSubstr("truncated"));
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(1000000000, 1000000000)"), bytesOf(1.0f))), HasSubstr("truncated"));
}

TEST_F(NpyTest, ZeroDimensionMakesAnyShapeEmpty) {
    writeFile(npyFile(dict("<f4", "(9223372036854775807, 0)"), ""));
    EXPECT_TRUE(readNpy(path("file.npy")).data.empty());
}

TEST_F(NpyTest, TruncatedDataIsAnError) {
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(3,)"), bytesOf(std::vector<float>{1, 2}))), HasSubstr("truncated"));
    EXPECT_THAT(errorReading(npyFile(dict("<f8", "()"), bytesOf(1.0f))), HasSubstr("truncated"));
}

TEST_F(NpyTest, ExtraBytesAfterTheDataAreAnError) {
    EXPECT_THAT(errorReading(npyFile(dict("<f4", "(1,)"), bytesOf(std::vector<float>{1, 2}))),
                HasSubstr("unexpected bytes"));
}

TEST_F(NpyTest, EveryTruncationOfAValidFileIsAnIoError) {
    const std::string bytes = npyFile(dict("<f8", "(2, 3)"), bytesOf(std::vector<double>{1, 2, 3, 4, 5, 6}));
    for (std::size_t length = 0; length < bytes.size(); ++length)
        EXPECT_FALSE(errorReading(bytes.substr(0, length)).empty()) << "length " << length;
}

TEST_F(NpyTest, CorruptingAnyHeaderByteGivesAValidTensorOrAnIoError) {
    const std::string bytes = npyFile(dict("<f4", "(2, 3)"), bytesOf(std::vector<float>{1, 2, 3, 4, 5, 6}));
    for (std::size_t at = 0; at < 74; ++at) {
        for (const char value : {'\0', '\xFF', '9', '(', ',', '\'', '-', '}'}) {
            std::string corrupt = bytes;
            corrupt[at] = value;
            const std::string file = writeFile(corrupt);
            try {
                const Tensor tensor = readNpy(file);
                EXPECT_EQ(static_cast<std::int64_t>(tensor.data.size()), tensor.size());
            } catch (const IoError&) {
            }
        }
    }
}

// ---- Writing errors and Tensor helpers ---------------------------------------------

TEST_F(NpyTest, WritingIntoAMissingDirectoryIsAnError) {
    Tensor tensor;
    tensor.shape = {1};
    tensor.data = {1.0f};
    try {
        writeNpy(path("no/such/dir/t.npy"), tensor);
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("cannot write"));
    }
}

TEST_F(NpyTest, WritingATensorWhoseDataDoesNotMatchItsShapeIsAnError) {
    Tensor tensor;
    tensor.shape = {2, 2};
    tensor.data = {1.0f, 2.0f, 3.0f};
    EXPECT_THROW(writeNpy(path("t.npy"), tensor), IoError);
    tensor.shape = {-2, -2};
    EXPECT_THROW(writeNpy(path("t.npy"), tensor), IoError);
    EXPECT_FALSE(fs::exists(path("t.npy")));
}

TEST(TensorTest, ToMatrixRequiresTwoDimsAndMatchingData) {
    Tensor tensor;
    tensor.shape = {2, 2, 1};
    tensor.data = {1, 2, 3, 4};
    EXPECT_THROW(headscope::io::toMatrix(tensor), IoError);
    tensor.shape = {2, 3};
    EXPECT_THROW(headscope::io::toMatrix(tensor), IoError);
    tensor.shape = {2, 2};
    const Eigen::MatrixXf matrix = headscope::io::toMatrix(tensor);  // (2, 2), row-major source
    EXPECT_EQ(matrix(0, 1), 2.0f);
    EXPECT_EQ(matrix(1, 0), 3.0f);
}

TEST(TensorTest, SizeOfAnInvalidShapeIsAnError) {
    Tensor tensor;
    EXPECT_EQ(tensor.size(), 1);  // 0-D
    tensor.shape = {3, -1};
    EXPECT_THROW(tensor.size(), IoError);
    tensor.shape = {1LL << 40, 1LL << 40};
    EXPECT_THROW(tensor.size(), IoError);
}
