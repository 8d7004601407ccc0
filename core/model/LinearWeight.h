#pragma once
// A weight matrix W (out, in) as nn.Linear holds it, y = x W^T, read where the checkpoint keeps
// it instead of copied:
//   F32        used in place from the memory-mapped file (no copy), in either layout the files use:
//              OutIn = stored (out, in) row-major (nn.Linear, every embedding table),
//              InOut = stored (in, out) row-major (GPT-2's Conv1D), i.e. (out, in) column-major.
//   F16, BF16  converted to float when a layer is computed, through the model's ConversionCache
//              (the first few layers stay converted, the others are streamed); a weight of no
//              layer (the embeddings) is converted a block of rows at a time and never kept whole.
//   owned      a float matrix in memory (models built in code; misaligned or big-endian data).
// Copies share the mapped file and the cache: a LinearWeight is cheap to copy and immutable.

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>

namespace headscope::io {
class MappedFile;
}

namespace headscope::model {

enum class StorageType { F32, F16, BF16 };
const char* storageTypeName(StorageType type);

// Converted F16/BF16 weights of up to `layers` layers, shared by a model's weights and safe to
// use from several threads at once. The first layers asked for are kept (converted once, free
// after); when it is full, the weights of other layers are streamed instead (converted a block
// of rows at a time, in the core's cache, for each product), which costs less than converting
// whole matrices into memory again and again: a forward visits the layers in turn, so a least
// recently used cache smaller than the model would never hit.
class ConversionCache {
public:
    static constexpr int kDefaultLayers = 2;
    explicit ConversionCache(int layers = kDefaultLayers) : capacity_(layers) {}
    void setCapacity(int layers);  // fewer: the least recently used layers are dropped
    int capacity() const;
    // The converted matrix of `key` (a tensor's address) in `layer`, converting it with `convert`
    // when the layer is held or there is room for it; null when the cache is full of other layers.
    std::shared_ptr<const Eigen::MatrixXf> get(const void* key, int layer,
                                               const std::function<void(Eigen::MatrixXf&)>& convert);
    void countStreamed();           // a layer's matrix was converted by blocks for one product
    long long conversions() const;  // matrices converted so far, whole or streamed (tests)
    int layersHeld() const;

private:
    mutable std::mutex mutex_;
    int capacity_;
    long long conversions_ = 0;
    std::list<int> order_;  // layers held, most recent first
    std::map<int, std::map<const void*, std::shared_ptr<Eigen::MatrixXf>>> layers_;
};

class LinearWeight {
public:
    enum class Layout { OutIn, InOut };

    LinearWeight() = default;
    // A float matrix W (out, in) held in memory.
    explicit LinearWeight(Eigen::MatrixXf w);
    // `out` x `in` values of `type` at `data` inside `file` (kept mapped while any copy lives),
    // in `layout`. F32 data that is not 4-byte aligned, or any data on a big-endian machine, is
    // converted into an owned matrix here. `layer` keys the cache (-1: converted by blocks).
    static LinearWeight stored(std::shared_ptr<const io::MappedFile> file, const unsigned char* data, StorageType type,
                               Layout layout, Eigen::Index out, Eigen::Index in, int layer,
                               std::shared_ptr<ConversionCache> cache);

    Eigen::Index rows() const { return out_; }  // out
    Eigen::Index cols() const { return in_; }   // in
    Eigen::Index size() const { return out_ * in_; }
    bool empty() const { return size() == 0; }
    StorageType type() const { return type_; }
    bool inPlace() const { return data_ != nullptr && type_ == StorageType::F32; }

    // y (n, out) = x (n, in) W^T (+ bias (out) when non-empty), the output columns split between
    // two threads when `parallel`.
    void apply(const Eigen::Ref<const Eigen::MatrixXf>& x, const Eigen::RowVectorXf& bias, Eigen::MatrixXf& y,
               bool parallel) const;
    // Row r of W (in): an embedding's vector for token r.
    Eigen::RowVectorXf row(Eigen::Index r) const;
    // W (out, in) as float, converted (not cached) when it is not F32.
    Eigen::MatrixXf toDense() const;
    // Rows [begin, begin + count) of W as float (count, in), converted (not cached) when not F32.
    Eigen::MatrixXf rowBlock(Eigen::Index begin, Eigen::Index count) const;
    // The same rows transposed, (in, count): the paper's layout of a projection (d, h*d_k). Data
    // stored (out, in) as torch's Linear stores it is decoded straight into it, no transpose.
    Eigen::MatrixXf transposedRows(Eigen::Index begin, Eigen::Index count) const;

private:
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    // Rows [begin, begin + count) of W as float (count, in).
    void convertRows(Eigen::Index begin, Eigen::Index count, Eigen::MatrixXf& dst) const;
    std::shared_ptr<const Eigen::MatrixXf> converted() const;  // W (out, in), whole, via the cache

    std::shared_ptr<const Eigen::MatrixXf> owned_;  // W (out, in)
    std::shared_ptr<const io::MappedFile> file_;
    std::shared_ptr<ConversionCache> cache_;
    const unsigned char* data_ = nullptr;
    StorageType type_ = StorageType::F32;
    Layout layout_ = Layout::OutIn;
    Eigen::Index out_ = 0, in_ = 0;
    int layer_ = -1;
};

}  // namespace headscope::model
