// Weights used where the checkpoint keeps them (model/LinearWeight.h): F32 in place from the
// memory map, F16/BF16 converted when a layer is computed through a bounded cache; the progress
// of loading (io/LoadProgress.h); a forward stopped at a layer's attention.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "TempDirTest.h"
#include "io/Checkpoint.h"
#include "io/MappedFile.h"
#include "model/Forward.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using namespace headscope;
using test::kTestData;
using ::testing::HasSubstr;

namespace {


// Little-endian bytes of w's values (F32, F16 or BF16) in `order`; w is replaced by the values
// the type can hold, so products compare exactly against it.
std::string encode(Eigen::MatrixXf& w, model::StorageType type, bool row_major) {
    std::string bytes;
    const auto put = [&](float& v) {
        std::uint32_t bits;
        if (type == model::StorageType::F16) {
            const Eigen::half h(v);
            v = static_cast<float>(h);
            const auto b = Eigen::numext::bit_cast<std::uint16_t>(h);
            bytes.push_back(char(b & 0xFF)), bytes.push_back(char(b >> 8));
            return;
        }
        std::memcpy(&bits, &v, 4);
        if (type == model::StorageType::BF16) {
            bits &= 0xFFFF0000u;
            std::memcpy(&v, &bits, 4);
            bytes.push_back(char((bits >> 16) & 0xFF)), bytes.push_back(char(bits >> 24));
            return;
        }
        for (int b = 0; b < 4; ++b) bytes.push_back(char((bits >> (8 * b)) & 0xFF));
    };
    if (row_major) {
        for (Eigen::Index r = 0; r < w.rows(); ++r)
            for (Eigen::Index c = 0; c < w.cols(); ++c) put(w(r, c));
    } else {
        for (Eigen::Index c = 0; c < w.cols(); ++c)
            for (Eigen::Index r = 0; r < w.rows(); ++r) put(w(r, c));
    }
    return bytes;
}

class StoredWeight : public TempDirTest {};

// The matrices a layer converts: the MLP's (gate, up, down or fc, proj) and the attention's
// (q, k, v, o, or the fused q-k-v and o).
long long matricesPerLayer(const model::Model& m) {
    const long long mlp = m.config.mlp == model::MlpKind::Gated ? 3 : 2;
    return mlp + (m.blocks.at(0).attention.packing == model::QkvPacking::Separate ? 4 : 2);
}

}  // namespace

// Every type and layout, in a layer (the cache) and outside one (blocks of rows), aligned and
// not: x W^T and W's rows as the dense float matrix gives them. W (5000, 6): two row blocks.
TEST_F(StoredWeight, AppliesLikeTheDenseMatrix) {
    using Layout = model::LinearWeight::Layout;
    const Eigen::MatrixXf x = Eigen::MatrixXf::Random(3, 6);
    const Eigen::RowVectorXf bias = Eigen::RowVectorXf::Random(5000);
    for (const auto type : {model::StorageType::F32, model::StorageType::F16, model::StorageType::BF16})
        for (const auto layout : {Layout::OutIn, Layout::InOut})
            for (const int layer : {-1, 0})
                for (const int pad : {0, 2}) {
                    SCOPED_TRACE(std::string(model::storageTypeName(type)) + (layout == Layout::OutIn ? " OutIn" : " InOut") +
                                 " layer " + std::to_string(layer) + " pad " + std::to_string(pad));
                    Eigen::MatrixXf w = Eigen::MatrixXf::Random(5000, 6);
                    // OutIn: W (out, in) row-major; InOut: W^T (in, out) row-major = W column-major.
                    const std::string bytes = std::string(8 + pad, 'x') + encode(w, type, layout == Layout::OutIn);
                    const auto file = std::make_shared<const io::MappedFile>(writeFile(bytes, "w.bin"));
                    const auto cache = std::make_shared<model::ConversionCache>(1);
                    const model::LinearWeight stored = model::LinearWeight::stored(
                        file, file->data() + 8 + pad, type, layout, 5000, 6, layer, cache);
                    EXPECT_EQ(stored.inPlace(), type == model::StorageType::F32 && pad == 0);
                    Eigen::MatrixXf y;
                    stored.apply(x, bias, y, true);
                    const Eigen::MatrixXf expected = (x * w.transpose()).rowwise() + bias;
                    EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-5f);
                    EXPECT_EQ(stored.row(4321), w.row(4321));
                    EXPECT_EQ(stored.toDense(), w);
                    EXPECT_EQ(cache->conversions(), layer >= 0 && type != model::StorageType::F32 ? 1 : 0);
                }
}

// A streamed layer's pages stay mapped through a short input's product (mapping them again in
// every forward costs a short one more than the memory they hold) and are handed back by a long
// input's (n >= 256) as it goes; an embedding's (no layer) are handed back always. The products
// are the dense matrix's either way. W (600, 512) BF16: two blocks of 300 rows.
TEST_F(StoredWeight, StreamedPagesAreHandedBackOnLongInputsAndForEmbeddings) {
    Eigen::MatrixXf w = Eigen::MatrixXf::Random(600, 512);
    const std::string bytes = std::string(4096, 'x') + encode(w, model::StorageType::BF16, true);
    const std::uint64_t tensor_bytes = 600 * 512 * 2, page = std::uint64_t(::sysconf(_SC_PAGESIZE));
    for (const int layer : {-1, 3}) {
        SCOPED_TRACE("layer " + std::to_string(layer));
        const auto file = std::make_shared<const io::MappedFile>(writeFile(bytes, "w.bin"));
        const auto cache = std::make_shared<model::ConversionCache>(0);  // no room: every layer streamed
        const model::LinearWeight stored = model::LinearWeight::stored(
            file, file->data() + 4096, model::StorageType::BF16, model::LinearWeight::Layout::OutIn, 600, 512, layer, cache);
        for (const int n : {64, 255, 256, 1}) {
            SCOPED_TRACE("n " + std::to_string(n));
            const std::uint64_t before = file->releasedBytes();
            const Eigen::MatrixXf x = Eigen::MatrixXf::Random(n, 512);
            Eigen::MatrixXf y;
            stored.apply(x, Eigen::RowVectorXf(), y, true);
            EXPECT_LT((y - x * w.transpose()).cwiseAbs().maxCoeff(), 1e-4f);
            const std::uint64_t released = file->releasedBytes() - before;
            if (layer < 0 || n >= 256) {
                EXPECT_LE(released, tensor_bytes);
                EXPECT_GE(released, tensor_bytes - 4 * page);  // whole pages inside each block
            } else {
                EXPECT_EQ(released, 0u);
            }
        }
    }
}

TEST(WeightStorage, F32CheckpointsAreUsedInPlace) {
    for (const char* folder : {"gpt2/f32_untied", "rotary/qwen2_tied", "rotary/qwen2_tied_sharded", "rotary/neox_sequential"}) {
        SCOPED_TRACE(folder);
        const model::ModelPtr m = io::loadCheckpoint((kTestData / folder).string());
        EXPECT_EQ(m->conversion_cache, nullptr);
        EXPECT_TRUE(m->wte.inPlace());
        EXPECT_TRUE(m->tiedOutput() || m->lm_head.inPlace());
        for (const model::Block& b : m->blocks) {
            EXPECT_TRUE(b.W_fc.inPlace());
            EXPECT_TRUE(b.W_proj.inPlace());
            EXPECT_TRUE(b.W_gate.empty() || b.W_gate.inPlace());
        }
    }
}

// Nothing of the MLP is converted at load; a forward converts each layer's matrices once, and
// the cache never holds more layers than it is allowed: with room for one layer of two, the first
// layer is kept and the second streamed (converted by blocks again in every forward); with room
// for both, the second is kept too, then nothing is converted. Same numbers either way.
TEST(WeightStorage, HalfLayersAreConvertedWhenComputedWithABoundedCache) {
    for (const char* folder : {"rotary/qwen2_tied_bf16", "gpt2/f16_tied_inner"}) {
        SCOPED_TRACE(folder);
        const model::ModelPtr m = io::loadCheckpoint((kTestData / folder).string());
        ASSERT_NE(m->conversion_cache, nullptr);
        ASSERT_EQ(m->config.n_layer, 2);
        EXPECT_FALSE(m->blocks[0].W_fc.inPlace());
        model::ConversionCache& cache = *m->conversion_cache;
        EXPECT_EQ(cache.conversions(), 0);
        const long long per_layer = matricesPerLayer(*m), per_forward = m->config.n_layer * per_layer;
        const std::vector<int> ids = {1, 2, 3, 4};
        cache.setCapacity(1);
        const model::Trace one = model::runModel(*m, ids);
        EXPECT_EQ(cache.conversions(), per_forward);
        EXPECT_EQ(cache.layersHeld(), 1);
        model::runModel(*m, ids);
        EXPECT_EQ(cache.conversions(), per_forward + per_layer);  // layer 0 held, layer 1 streamed again
        EXPECT_EQ(cache.layersHeld(), 1);
        cache.setCapacity(m->config.n_layer);
        model::runModel(*m, ids);
        EXPECT_EQ(cache.conversions(), per_forward + 2 * per_layer);  // layer 1 converted once more, now kept
        const model::Trace cached = model::runModel(*m, ids);
        EXPECT_EQ(cache.conversions(), per_forward + 2 * per_layer);
        EXPECT_EQ(cache.layersHeld(), m->config.n_layer);
        EXPECT_EQ(one.logits, cached.logits);
        cache.setCapacity(0);  // nothing held: every layer streamed, the same numbers
        EXPECT_EQ(cache.layersHeld(), 0);
        const model::Trace streamed = model::runModel(*m, ids);
        EXPECT_EQ(cache.conversions(), 2 * per_forward + 2 * per_layer);
        EXPECT_EQ(streamed.logits, cached.logits);
    }
}

// The cache size given when opening (--cache-layers, the window's model/cache_layers): 0 converts
// every layer each time it is used, a number at least the model's layers keeps all of them after
// one forward; the attention and logits are identical to the default's. Negative is refused.
TEST(WeightStorage, CacheLayersGivenWhenOpening) {
    for (const char* folder : {"rotary/qwen2_tied_bf16", "gpt2/f16_tied_inner"}) {
        SCOPED_TRACE(folder);
        const std::string path = (kTestData / folder).string();
        const std::vector<int> ids = {1, 2, 3, 4};
        const model::ModelPtr usual = io::loadCheckpoint(path);
        EXPECT_EQ(usual->conversion_cache->capacity(), model::ConversionCache::kDefaultLayers);
        const model::Trace expected = model::runModel(*usual, ids);
        const long long per_forward = usual->config.n_layer * matricesPerLayer(*usual);

        const model::ModelPtr none = io::loadCheckpoint(path, {}, 0);
        for (int run = 1; run <= 2; ++run) {
            const model::Trace t = model::runModel(*none, ids);
            EXPECT_EQ(none->conversion_cache->conversions(), run * per_forward);  // every layer, every time
            EXPECT_EQ(none->conversion_cache->layersHeld(), 0);
            EXPECT_EQ(t.logits, expected.logits);
            for (int l = 0; l < usual->config.n_layer; ++l)
                for (int h = 0; h < usual->config.n_head; ++h)
                    EXPECT_EQ(t.layers[l].attention.heads[h].weights, expected.layers[l].attention.heads[h].weights);
        }
        const model::ModelPtr all = io::loadCheckpoint(path, {}, 1000);
        model::runModel(*all, ids);
        const model::Trace again = model::runModel(*all, ids);
        EXPECT_EQ(all->conversion_cache->conversions(), per_forward);  // converted once, then kept
        EXPECT_EQ(all->conversion_cache->layersHeld(), all->config.n_layer);
        EXPECT_EQ(again.logits, expected.logits);
        try {
            io::loadCheckpoint(path, {}, -1);
            ADD_FAILURE() << "a negative cache size was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_THAT(e.what(), HasSubstr("must be 0 or more, not -1"));
        }
    }
}

TEST(LoadProgress, ReachesOneNeverGoingBackAndCancels) {
    std::vector<std::pair<double, std::string>> heard;
    const auto record = [&](double fraction, const std::string& stage) {
        heard.emplace_back(fraction, stage);
        return true;
    };
    io::loadCheckpoint((kTestData / "rotary/qwen2_tied_sharded").string(), record);
    ASSERT_GE(heard.size(), 4u);
    for (std::size_t i = 1; i < heard.size(); ++i) EXPECT_GE(heard[i].first, heard[i - 1].first) << heard[i].second;
    EXPECT_EQ(heard.back().first, 1.0);
    std::vector<std::string> stages;
    for (const auto& [fraction, stage] : heard) stages.push_back(stage);
    EXPECT_THAT(stages, ::testing::Contains("reading shard 2 of 2"));
    EXPECT_THAT(stages, ::testing::Contains("mapping layer 2 of 2"));
    heard.clear();
    io::loadCheckpoint((kTestData / "gpt2/bf16_prefix_untied").string(), record);
    EXPECT_EQ(heard.back().first, 1.0);
    EXPECT_EQ(heard[heard.size() - 3].second, "mapping layer 2 of 2");  // nothing converted at load

    int calls = 0;
    const auto cancel = [&](double fraction, const std::string&) { return ++calls < 3 && fraction < 1; };
    try {
        io::loadCheckpoint((kTestData / "rotary/qwen2_tied_bf16").string(), cancel);
        ADD_FAILURE() << "the load was not cancelled";
    } catch (const io::LoadCancelled& e) {
        EXPECT_THAT(e.what(), HasSubstr("cancelled"));
    }
    EXPECT_EQ(calls, 3);
}

// layers = 1: layer 0 up to its attention, exactly as the whole forward computes it; no logits.
TEST(ForwardLayers, StopsAtTheLastLayersAttention) {
    const model::ModelPtr m = io::loadCheckpoint((kTestData / "rotary/qwen2_tied").string());
    const std::vector<int> ids = {3, 1, 4, 1, 5};
    const model::Trace whole = model::runModel(*m, ids);
    model::ForwardOptions first;
    first.layers = 1;
    const model::Trace part = model::runModel(*m, ids, first);
    ASSERT_EQ(part.layers.size(), 1u);
    EXPECT_EQ(part.logits.size(), 0);
    EXPECT_EQ(part.layers[0].attention.output, whole.layers[0].attention.output);
    EXPECT_EQ(part.layers[0].attention.heads[0].weights, whole.layers[0].attention.heads[0].weights);
}
