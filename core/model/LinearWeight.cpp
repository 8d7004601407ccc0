#include "model/LinearWeight.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "Parallel.h"
#include "io/MappedFile.h"

namespace headscope::model {

namespace {

constexpr bool kLittleEndian = std::endian::native == std::endian::little;

std::size_t itemBytes(StorageType t) { return t == StorageType::F32 ? 4 : 2; }

// count little-endian values of type t at src -> float at dst (exact for all three types).
void decode(const unsigned char* src, StorageType t, std::size_t count, float* dst) {
    switch (t) {
        case StorageType::F32:
            if constexpr (kLittleEndian) {
                std::memcpy(dst, src, count * 4);
            } else {
                for (std::size_t i = 0; i < count; ++i)
                    dst[i] = std::bit_cast<float>(std::uint32_t(src[4 * i]) | std::uint32_t(src[4 * i + 1]) << 8 |
                                                  std::uint32_t(src[4 * i + 2]) << 16 | std::uint32_t(src[4 * i + 3]) << 24);
            }
            break;
        case StorageType::F16:
            for (std::size_t i = 0; i < count; ++i) {
                const auto bits = static_cast<std::uint16_t>(src[2 * i] | src[2 * i + 1] << 8);
                dst[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
            }
            break;
        case StorageType::BF16:  // the upper 16 bits of a float
            if constexpr (kLittleEndian) {  // whole 16-bit loads: the loop vectorizes
                for (std::size_t i = 0; i < count; ++i) {
                    std::uint16_t bits;
                    std::memcpy(&bits, src + 2 * i, 2);
                    dst[i] = std::bit_cast<float>(std::uint32_t(bits) << 16);
                }
            } else {
                for (std::size_t i = 0; i < count; ++i)
                    dst[i] = std::bit_cast<float>(std::uint32_t(src[2 * i] | src[2 * i + 1] << 8) << 16);
            }
            break;
    }
}

// Rows of W converted at once when it is streamed: as many as fill half the core's L2 cache as
// float (1 MiB of a 2 MiB L2), so that the block stays there between its conversion and Eigen's
// packing of it, but at least 128: each block's product packs x again, which costs about 2 / rows
// of the block's multiply-adds. Qwen3-0.6B's 64-token forward, AVX-512 Xeon with 2 MiB of L2:
// blocks of 2^20 values (4 MiB) and 16 rows 1.73x the GEMM floor, 2^18 values and 128 rows 1.22x
// (Llama 3.2 1B geometry: 1.27x and 1.14x), pages kept (below); medians of 7 in one process.
constexpr Eigen::Index kMinBlockRows = 128;

Eigen::Index blockRows(Eigen::Index in) {
    static const Eigen::Index values =
        std::clamp<Eigen::Index>(Eigen::Index(Eigen::l2CacheSize()) / 2 / Eigen::Index(sizeof(float)), 1 << 16, 1 << 20);
    return std::clamp<Eigen::Index>(values / std::max<Eigen::Index>(1, in), kMinBlockRows, 4096);
}

// A layer's streamed product over this many rows of x or more (a long input) hands the file's pages
// it has read back to the system as it goes: its activations are what fills memory, and mapping the
// pages again costs little beside n multiply-adds per weight. A shorter one keeps them mapped
// (clean page cache, which the system reclaims when it needs to): at 64 tokens mapping them again
// in every forward halved the conversion's speed on two threads (Qwen3-0.6B: 1.58x the floor with
// the pages handed back, 1.22x kept). A weight of no layer (the embeddings, the largest tensor,
// read for one row of logits) hands them back always.
constexpr Eigen::Index kReleaseRows = 256;

// Column range of one half (0 or 1) of n: (begin, width).
std::pair<Eigen::Index, Eigen::Index> half(Eigen::Index n, int which) {
    const Eigen::Index first = n / 2;
    return which == 0 ? std::pair{Eigen::Index(0), first} : std::pair{first, n - first};
}

}  // namespace

const char* storageTypeName(StorageType type) {
    return type == StorageType::F32 ? "F32" : type == StorageType::F16 ? "F16" : "BF16";
}

// ---- ConversionCache ------------------------------------------------------------------------

void ConversionCache::setCapacity(int layers) {
    std::lock_guard lock(mutex_);
    capacity_ = std::max(0, layers);
    while (static_cast<int>(order_.size()) > capacity_) {  // the least recently used layers go
        layers_.erase(order_.back());
        order_.pop_back();
    }
}

int ConversionCache::capacity() const {
    std::lock_guard lock(mutex_);
    return capacity_;
}

long long ConversionCache::conversions() const {
    std::lock_guard lock(mutex_);
    return conversions_;
}

int ConversionCache::layersHeld() const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(layers_.size());
}

void ConversionCache::countStreamed() {
    std::lock_guard lock(mutex_);
    ++conversions_;
}

std::shared_ptr<const Eigen::MatrixXf> ConversionCache::get(const void* key, int layer,
                                                            const std::function<void(Eigen::MatrixXf&)>& convert) {
    {
        std::lock_guard lock(mutex_);
        const auto it = layers_.find(layer);
        if (it == layers_.end() && static_cast<int>(layers_.size()) >= capacity_) return nullptr;  // full: stream it
        order_.remove(layer);
        order_.push_front(layer);
        if (it != layers_.end()) {
            const auto found = it->second.find(key);
            if (found != it->second.end()) return found->second;
        }
        layers_[layer];  // the layer's place, taken before converting
    }
    auto matrix = std::make_shared<Eigen::MatrixXf>();
    convert(*matrix);  // outside the lock: other layers stay usable meanwhile
    std::lock_guard lock(mutex_);
    ++conversions_;
    const auto it = layers_.find(layer);
    if (it == layers_.end()) return matrix;  // dropped meanwhile (setCapacity): used once
    auto& entry = it->second[key];
    if (!entry) entry = std::move(matrix);
    return entry;
}

// ---- LinearWeight ---------------------------------------------------------------------------

LinearWeight::LinearWeight(Eigen::MatrixXf w)
    : out_(w.rows()), in_(w.cols()) {
    owned_ = std::make_shared<const Eigen::MatrixXf>(std::move(w));
}

LinearWeight LinearWeight::stored(std::shared_ptr<const io::MappedFile> file, const unsigned char* data, StorageType type,
                                  Layout layout, Eigen::Index out, Eigen::Index in, int layer,
                                  std::shared_ptr<ConversionCache> cache) {
    LinearWeight w;
    w.file_ = std::move(file);
    w.cache_ = std::move(cache);
    w.data_ = data;
    w.type_ = type;
    w.layout_ = layout;
    w.out_ = out;
    w.in_ = in;
    w.layer_ = layer;
    const bool aligned = reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0;
    if (type == StorageType::F32 && (!aligned || !kLittleEndian)) {  // a Map needs aligned native floats
        Eigen::MatrixXf dense = w.toDense();
        return LinearWeight(std::move(dense));
    }
    return w;
}

void LinearWeight::convertRows(Eigen::Index begin, Eigen::Index count, Eigen::MatrixXf& dst) const {
    // dst (count, in) = W[begin .. begin + count)
    dst.resize(count, in_);
    const std::size_t item = itemBytes(type_);
    if (layout_ == Layout::OutIn) {  // row r is `in` consecutive values
        RowMajor rows(count, in_);
        decode(data_ + std::size_t(begin) * in_ * item, type_, std::size_t(count * in_), rows.data());
        dst = rows;
    } else {  // row r of W is column r of the stored (in, out): one value from each stored row
        for (Eigen::Index c = 0; c < in_; ++c)
            decode(data_ + (std::size_t(c) * out_ + begin) * item, type_, std::size_t(count), dst.col(c).data());
    }
}

std::shared_ptr<const Eigen::MatrixXf> LinearWeight::converted() const {
    // Kept in the data's own order, so converting is one straight pass (split between two threads):
    // OutIn data as W^T (in, out), InOut data as W (out, in).
    return cache_->get(data_, layer_, [this](Eigen::MatrixXf& m) {
        const Eigen::Index columns = layout_ == Layout::OutIn ? out_ : in_, length = layout_ == Layout::OutIn ? in_ : out_;
        m.resize(length, columns);
        const std::size_t item = itemBytes(type_);
        parallelFor(2, [&](int task) {
            const auto [begin, width] = half(columns, task);
            decode(data_ + std::size_t(begin) * length * item, type_, std::size_t(width * length), m.col(begin).data());
        });
        const std::uint64_t offset = static_cast<std::uint64_t>(data_ - file_->data());
        file_->release(offset, std::uint64_t(size()) * item);  // the float copy replaces the mapped pages
    });
}

void LinearWeight::apply(const Eigen::Ref<const Eigen::MatrixXf>& x, const Eigen::RowVectorXf& bias, Eigen::MatrixXf& y,
                         bool parallel) const {
    y.resize(x.rows(), out_);
    std::shared_ptr<const Eigen::MatrixXf> held = owned_;
    if (!owned_ && !inPlace() && layer_ >= 0) held = converted();  // null when the cache is full: streamed below
    if (held || inPlace()) {
        // Each form as (out, in) W or (in, out) W^T, column-major, without a copy.
        const bool transposed = held ? (!owned_ && layout_ == Layout::OutIn) : layout_ == Layout::OutIn;
        const float* values = held ? held->data() : reinterpret_cast<const float*>(data_);
        // A tiny product is not split: whole, it has the shapes of the streamed path's single
        // block, so Eigen picks the same kernel (it computes products under 20 rows + columns +
        // depth coefficient by coefficient) and held and streamed weights give the same bits.
        const bool whole = double(x.rows()) * double(out_) * double(in_) < 65536;
        parallelFor(whole ? 1 : 2, [&](int task) {
            const auto [begin, width] = whole ? std::pair{Eigen::Index(0), out_} : half(out_, task);
            if (transposed) {  // W^T (in, out): its columns are W's rows
                const Eigen::Map<const Eigen::MatrixXf> wt(values, in_, out_);
                y.middleCols(begin, width).noalias() = x * wt.middleCols(begin, width);
            } else {
                const Eigen::Map<const Eigen::MatrixXf> w(values, out_, in_);
                y.middleCols(begin, width).noalias() = x * w.middleRows(begin, width).transpose();
            }
            if (bias.size()) y.middleCols(begin, width).rowwise() += bias.segment(begin, width);
        }, parallel);
        return;
    }
    // Streamed (an embedding, or a layer the full cache does not hold): blocks of rows converted,
    // multiplied and dropped, two threads taking alternate blocks (an even number of them, of equal
    // size, where there are rows for two); the mapped pages of each block are handed back on a long
    // input. A block is small enough to stay in the core's cache between its conversion and its
    // product, and each thread converts into one buffer for the whole call.
    if (layer_ >= 0) cache_->countStreamed();
    Eigen::Index blocks = (out_ + blockRows(in_) - 1) / blockRows(in_);
    if (out_ >= 2 * kMinBlockRows) blocks = std::max<Eigen::Index>(2, blocks + blocks % 2);
    const Eigen::Index block_rows = (out_ + blocks - 1) / blocks;
    blocks = (out_ + block_rows - 1) / block_rows;  // none empty (262,144 rows in 1,156 blocks of 227: 1,155 of them)
    const bool release = layer_ < 0 || x.rows() >= kReleaseRows;
    const std::size_t item = itemBytes(type_);
    const std::uint64_t offset = static_cast<std::uint64_t>(data_ - file_->data());
    parallelFor(2, [&](int task) {
        RowMajor rows;      // (count, in): W's rows as stored (OutIn)
        Eigen::MatrixXf w;  // (count, in), gathered column by column (InOut)
        for (Eigen::Index b = task; b < blocks; b += 2) {
            const Eigen::Index begin = b * block_rows, count = std::min(block_rows, out_ - begin);
            if (layout_ == Layout::OutIn) {
                rows.resize(count, in_);
                decode(data_ + std::size_t(begin) * in_ * item, type_, std::size_t(count * in_), rows.data());
                y.middleCols(begin, count).noalias() = x * rows.transpose();  // (n, in) (in, count) -> (n, count)
                if (release) file_->release(offset + std::uint64_t(begin) * in_ * item, std::uint64_t(count) * in_ * item);
            } else {
                convertRows(begin, count, w);
                y.middleCols(begin, count).noalias() = x * w.transpose();     // (n, count)
            }
            if (bias.size()) y.middleCols(begin, count).rowwise() += bias.segment(begin, count);
        }
    }, parallel);
}

Eigen::RowVectorXf LinearWeight::row(Eigen::Index r) const {
    if (owned_) return owned_->row(r);
    Eigen::MatrixXf one;
    convertRows(r, 1, one);
    return one.row(0);
}

Eigen::MatrixXf LinearWeight::rowBlock(Eigen::Index begin, Eigen::Index count) const {
    if (owned_) return owned_->middleRows(begin, count);
    Eigen::MatrixXf w;
    convertRows(begin, count, w);
    return w;
}

Eigen::MatrixXf LinearWeight::transposedRows(Eigen::Index begin, Eigen::Index count) const {
    if (owned_) return owned_->middleRows(begin, count).transpose();
    if (layout_ == Layout::InOut) return rowBlock(begin, count).transpose();
    // Rows [begin, begin + count) of the row-major (out, in) data are a column-major (in, count).
    Eigen::MatrixXf wt(in_, count);
    decode(data_ + std::size_t(begin) * in_ * itemBytes(type_), type_, std::size_t(count * in_), wt.data());
    return wt;
}

Eigen::MatrixXf LinearWeight::toDense() const {
    if (owned_) return *owned_;
    Eigen::MatrixXf w;
    convertRows(0, out_, w);
    return w;
}

}  // namespace headscope::model
