#include "io/Npy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string_view>

#include "io/BinaryFile.h"
#include "io/Quote.h"

namespace headscope::io {
namespace {

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr std::uint64_t kMaxNpyHeaderBytes = 1 << 20;  // NumPy itself refuses more than 10 000

// ---- Files -------------------------------------------------------------------------


template <class UInt>
UInt byteSwapped(UInt value) {
    UInt swapped = 0;
    for (std::size_t i = 0; i < sizeof(UInt); ++i) {
        swapped = static_cast<UInt>((swapped << 8) | (value & 0xFF));
        value = static_cast<UInt>(value >> 8);
    }
    return swapped;
}

// ---- Header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// with exactly the keys descr (string), fortran_order (bool) and shape (tuple of ints).

struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
};

class HeaderParser {
public:
    explicit HeaderParser(std::string_view text) : text_(text) {}

    Header parse() {
        Header header;
        bool seen_descr = false, seen_order = false, seen_shape = false;
        expect('{');
        while (!consume('}')) {
            const std::string key = parseString();
            expect(':');
            if (key == "descr") {
                markSeen(seen_descr, key);
                if (peek() != '\'' && peek() != '"')
                    fail("'descr' is not a simple type string such as '<f4' (structured dtypes are not supported)");
                header.descr = parseString();
            } else if (key == "fortran_order") {
                markSeen(seen_order, key);
                header.fortran_order = parseBool();
            } else if (key == "shape") {
                markSeen(seen_shape, key);
                header.shape = parseShape();
            } else {
                fail("it has the unexpected key " + quote(key));
            }
            if (!consume(',')) {
                expect('}');
                break;
            }
        }
        skipSpace();
        if (pos_ != text_.size()) fail("there is text after the closing '}'");
        for (const auto& [seen, key] : {std::pair{seen_descr, "descr"}, {seen_order, "fortran_order"}, {seen_shape, "shape"}})
            if (!seen) fail(std::string("it lacks the key '") + key + "'");
        return header;
    }

private:
    [[noreturn]] void fail(const std::string& why) const { throw IoError("the header dictionary is invalid: " + why); }

    void markSeen(bool& seen, const std::string& key) const {
        if (seen) fail("the key " + quote(key) + " appears twice");
        seen = true;
    }

    void skipSpace() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    char peek() {
        skipSpace();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    bool consume(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void expect(char c) {
        if (!consume(c)) fail(std::string("expected '") + c + "' at character " + std::to_string(pos_));
    }

    std::string parseString() {
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail("expected a quoted key or string at character " + std::to_string(pos_));
        const std::size_t end = text_.find(quote, pos_ + 1);
        if (end == std::string_view::npos) fail("a string is not closed");
        std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
        if (value.find('\\') != std::string::npos) fail("escape sequences in strings are not supported");
        pos_ = end + 1;
        return value;
    }

    bool parseBool() {
        skipSpace();
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        }
        fail("'fortran_order' is not True or False");
    }

    std::vector<std::int64_t> parseShape() {
        if (peek() != '(') fail("'shape' is not a tuple");
        ++pos_;
        std::vector<std::int64_t> shape;
        bool trailing_comma = false;
        while (!consume(')')) {
            shape.push_back(parseDim());
            trailing_comma = consume(',');
            if (!trailing_comma) {
                expect(')');
                break;
            }
        }
        if (shape.size() == 1 && !trailing_comma) fail("'shape' (n) is a number, not a tuple; write (n,)");
        return shape;
    }

    std::int64_t parseDim() {
        skipSpace();
        const bool negative = pos_ < text_.size() && text_[pos_] == '-';
        if (negative) ++pos_;
        if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
            fail("'shape' holds something that is not an integer");
        std::int64_t value = 0;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            const int digit = text_[pos_++] - '0';
            if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("a dimension in 'shape' is too large");
            value = value * 10 + digit;
        }
        if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long suffix
        if (negative && value != 0) fail("'shape' has the negative dimension -" + std::to_string(value));
        return value;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// ---- Data --------------------------------------------------------------------------

struct Dtype {
    std::size_t item_size;  // 4 or 8
    bool big_endian;
};

Dtype parseDescr(const std::string& descr) {
    if (descr == "<f4") return {4, false};
    if (descr == ">f4") return {4, true};
    if (descr == "<f8") return {8, false};
    if (descr == ">f8") return {8, true};
    throw IoError("its dtype " + quote(descr, 16) + " is not supported (supported: '<f4', '>f4', '<f8', '>f8')");
}

// Reads count float32 values stored with the given byte order.
void readFloat32(std::ifstream& in, std::uint64_t offset, bool big_endian, std::vector<float>& out) {
    readAt(in, offset, reinterpret_cast<char*>(out.data()), out.size() * sizeof(float));
    if (big_endian == (std::endian::native == std::endian::big)) return;
    for (float& value : out) {
        std::uint32_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        bits = byteSwapped(bits);
        std::memcpy(&value, &bits, sizeof bits);
    }
}

// Reads out.size() float64 values in chunks and narrows them to float.
void readFloat64(std::ifstream& in, std::uint64_t offset, bool big_endian, std::vector<float>& out) {
    const bool swap = big_endian != (std::endian::native == std::endian::big);
    std::vector<std::uint64_t> chunk(std::min(out.size(), kConvertChunkValues));
    for (std::size_t start = 0; start < out.size(); start += chunk.size()) {
        const std::size_t count = std::min(chunk.size(), out.size() - start);
        readAt(in, offset + start * 8, reinterpret_cast<char*>(chunk.data()), count * 8);
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint64_t bits = swap ? byteSwapped(chunk[i]) : chunk[i];
            double value;
            std::memcpy(&value, &bits, sizeof value);
            const auto narrowed = static_cast<float>(value);
            if (std::isinf(narrowed) && std::isfinite(value))
                throw IoError("the float64 value " + shortNumber(value) + " at flat index " + std::to_string(start + i) +
                              " is outside the float32 range");
            out[start + i] = narrowed;
        }
    }
}

Tensor readNpyUnchecked(const std::string& path) {
    std::uint64_t file_size = 0;
    std::ifstream in = openForReading(path, file_size);

    // Preamble: magic (6), major, minor, header length (2 bytes LE in v1, 4 in v2 / v3).
    if (file_size < 10) throw IoError("it is only " + std::to_string(file_size) + " bytes long, too short for a .npy file");
    std::array<unsigned char, 12> preamble{};
    readAt(in, 0, reinterpret_cast<char*>(preamble.data()), 10);
    if (std::memcmp(preamble.data(), kMagic.data(), kMagic.size()) != 0)
        throw IoError("it does not start with the .npy magic string \\x93NUMPY");
    const int major = preamble[6], minor = preamble[7];
    if (major < 1 || major > 3 || minor != 0)
        throw IoError("its format version " + std::to_string(major) + "." + std::to_string(minor) +
                      " is not supported (supported: 1.0, 2.0, 3.0)");
    std::uint64_t header_length = preamble[8] | (std::uint64_t{preamble[9]} << 8);
    std::uint64_t header_start = 10;
    if (major >= 2) {
        if (file_size < 12) throw IoError("it ends inside the header length");
        readAt(in, 10, reinterpret_cast<char*>(preamble.data()) + 10, 2);
        header_length |= (std::uint64_t{preamble[10]} << 16) | (std::uint64_t{preamble[11]} << 24);
        header_start = 12;
    }
    if (header_length > file_size - header_start)
        throw IoError("its header length " + std::to_string(header_length) + " runs past the end of the file (" +
                      std::to_string(file_size) + " bytes)");
    if (header_length > kMaxNpyHeaderBytes)
        throw IoError("its header length " + std::to_string(header_length) + " exceeds the limit of " +
                      std::to_string(kMaxNpyHeaderBytes) + " bytes");

    std::string header_text(header_length, '\0');
    readAt(in, header_start, header_text.data(), header_text.size());
    const Header header = HeaderParser(header_text).parse();
    const Dtype dtype = parseDescr(header.descr);
    if (header.fortran_order)
        throw IoError("it is stored in Fortran (column-major) order, which is not supported; save np.ascontiguousarray(a)");

    const std::uint64_t data_start = header_start + header_length;
    const std::uint64_t available = file_size - data_start;
    const auto count = checkedElementCount(header.shape);
    if (!count)
        throw IoError("its shape " + shapeToString(header.shape) + " has more elements than a 64-bit count can hold");
    const auto elements = static_cast<std::uint64_t>(*count);
    const bool overflows = elements > std::numeric_limits<std::uint64_t>::max() / dtype.item_size;
    const std::uint64_t needed = overflows ? 0 : elements * dtype.item_size;
    if (overflows || needed > available)
        throw IoError("it is truncated: shape " + shapeToString(header.shape) + " of " + quote(header.descr) + " needs " +
                      (overflows ? "more than 2^64" : std::to_string(needed)) + " data bytes but the file has " +
                      std::to_string(available));
    if (needed < available)
        throw IoError("it has " + std::to_string(available - needed) + " unexpected bytes after the data of shape " +
                      shapeToString(header.shape));

    Tensor tensor;
    tensor.shape = header.shape;
    tensor.data.resize(static_cast<std::size_t>(*count));  // bounded by the file size
    if (dtype.item_size == 4)
        readFloat32(in, data_start, dtype.big_endian, tensor.data);
    else
        readFloat64(in, data_start, dtype.big_endian, tensor.data);
    return tensor;
}

// ---- Writing -----------------------------------------------------------------------

// Header bytes exactly as numpy.lib.format._write_array_header produces them.
std::string npyPreambleAndHeader(const std::vector<std::int64_t>& shape) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeToString(shape) + ", }";
    constexpr std::size_t kGrowthAxisMaxDigits = 21;  // spare room to grow the first axis in place
    if (!shape.empty()) dict.append(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');

    // Spaces and a newline pad magic + version + length + header to a multiple of 64 bytes
    // (NumPy adds 64 spaces rather than none when the header is already aligned).
    const std::size_t with_newline = dict.size() + 1;
    const auto padding = [&](std::size_t prefix) { return 64 - (prefix + with_newline) % 64; };
    const bool version1 = with_newline + padding(10) <= 0xFFFF;  // else version 2.0 (4-byte length)
    const std::size_t prefix = version1 ? 10 : 12;
    const std::uint64_t length = with_newline + padding(prefix);

    std::string out(kMagic);
    out += static_cast<char>(version1 ? 1 : 2);
    out += '\0';
    for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((length >> (8 * i)) & 0xFF);
    out += dict;
    out.append(padding(prefix), ' ');
    out += '\n';
    return out;
}

}  // namespace

Tensor readNpy(const std::string& path) {
    try {
        return readNpyUnchecked(path);
    } catch (const IoError& error) {
        throw IoError("cannot read .npy file " + quotePath(path) + ": " + error.what());
    } catch (const std::bad_alloc&) {
        throw IoError("cannot read .npy file " + quotePath(path) + ": not enough memory for its data");
    }
}

void writeNpy(const std::string& path, const Tensor& tensor) {
    const auto count = checkedElementCount(tensor.shape);
    if (!count || static_cast<std::uint64_t>(*count) != tensor.data.size())
        throw IoError("cannot write .npy file " + quotePath(path) + ": the tensor of shape " + shapeToString(tensor.shape) + " holds " +
                      std::to_string(tensor.data.size()) + " values, which does not match its shape");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw IoError("cannot write .npy file " + quotePath(path) + ": it cannot be opened for writing");
    const std::string header = npyPreambleAndHeader(tensor.shape);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));

    // Data as little-endian float32, converted in chunks so big-endian hosts work too.
    std::vector<unsigned char> chunk;
    for (std::size_t start = 0; start < tensor.data.size(); start += kConvertChunkValues) {
        const std::size_t end = std::min(tensor.data.size(), start + kConvertChunkValues);
        chunk.resize((end - start) * 4);
        for (std::size_t i = start; i < end; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, &tensor.data[i], sizeof bits);
            for (std::size_t b = 0; b < 4; ++b) chunk[(i - start) * 4 + b] = static_cast<unsigned char>(bits >> (8 * b));
        }
        out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
    }
    out.close();
    if (!out) throw IoError("cannot write .npy file " + quotePath(path) + ": writing failed (disk full?)");
}

void writeNpy(const std::string& path, const Eigen::Ref<const Eigen::MatrixXf>& matrix) {
    writeNpy(path, fromMatrix(matrix));
}

}  // namespace headscope::io
