// A loaded model's attention kept as the checkpoint stores it (model/AttentionWeights.h): F32
// used in place from the memory map, F16/BF16 converted through the layer cache when a layer is
// computed (nothing at load); the paper's layout of one layer (Model::attentionWeights) equal,
// with tolerance 0, to an independent reading of the file; the forward through the stored
// matrices equal to core's forward() on that layout.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "Engine.h"
#include "io/Checkpoint.h"
#include "io/Safetensors.h"
#include "model/Forward.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using namespace headscope;
using test::kSharedModels;
using test::kTestData;

namespace {


// Small fixtures of every family and dtype, and the trained checkpoints beside the project.
std::vector<fs::path> folders(bool f32_only) {
    std::vector<fs::path> all = {kTestData / "gpt2/f32_untied", kTestData / "gpt2/f32_prefix_tied",
                                 kTestData / "rotary/qwen2_tied", kTestData / "rotary/neox_sequential"};
    if (!f32_only)
        for (const char* half : {"gpt2/f16_tied_inner", "gpt2/bf16_prefix_untied", "rotary/qwen2_tied_bf16",
                                 "rotary/llama3_scaled"})
            all.push_back(kTestData / half);
    for (const char* trained : {"nano-sort", "induction", "llama-induction", "neox-induction"})
        if (fs::exists(kSharedModels / trained / "config.json")) all.push_back(kSharedModels / trained);
    return all;
}

// Every tensor of the folder's one safetensors file as float, the name without its prefix
// ("transformer.", "model.", "gpt_neox.").
std::map<std::string, io::Tensor> tensorsOf(const fs::path& folder) {
    std::map<std::string, io::Tensor> named;
    io::SafetensorsReader file((folder / "model.safetensors").string());
    for (const std::string& name : file.names()) {
        const std::string& dtype = file.dtype(name);
        if (dtype != "F32" && dtype != "F16" && dtype != "BF16") continue;  // GPT-2's masks (U8, BOOL)
        std::string key = name;
        for (const char* prefix : {"transformer.", "model.", "gpt_neox."})
            if (key.rfind(prefix, 0) == 0) key = key.substr(std::string(prefix).size());
        named[key] = file.read(name);
    }
    return named;
}

Eigen::RowVectorXf vectorOf(const io::Tensor& t) {
    return Eigen::Map<const Eigen::RowVectorXf>(t.data.data(), Eigen::Index(t.data.size()));
}

// Layer l in the paper's layout as the loaders of before made it, read straight from the file.
Weights expectedLayer(const model::Model& m, std::map<std::string, io::Tensor>& t, int l) {
    const model::ModelConfig& c = m.config;
    const int d = c.n_embd, d_k = c.headDim(), h = c.n_head, kv = c.kvHeads();
    Weights w;
    w.heads = h, w.kv_heads = kv, w.d_k = w.d_v = d_k;
    const std::string L = std::to_string(l);
    if (c.family == "gpt2") {  // Conv1D (in, out) is already X W: c_attn (d, 3d) = [W_Q | W_K | W_V]
        const Eigen::MatrixXf qkv = io::toMatrix(t.at("h." + L + ".attn.c_attn.weight"));
        const Eigen::RowVectorXf b = vectorOf(t.at("h." + L + ".attn.c_attn.bias"));
        w.W_Q = qkv.leftCols(d), w.W_K = qkv.middleCols(d, d), w.W_V = qkv.rightCols(d);
        w.b_Q = b.segment(0, d), w.b_K = b.segment(d, d), w.b_V = b.segment(2 * d, d);
        w.W_O = io::toMatrix(t.at("h." + L + ".attn.c_proj.weight"));
        w.b_O = vectorOf(t.at("h." + L + ".attn.c_proj.bias"));
    } else if (c.family == "gpt_neox") {  // query_key_value (3d, d), rows (h, 3, d_k)
        const std::string p = "layers." + L + ".attention.";
        const Eigen::MatrixXf qkv = io::toMatrix(t.at(p + "query_key_value.weight"));
        const Eigen::RowVectorXf b = vectorOf(t.at(p + "query_key_value.bias"));
        w.W_Q.resize(d, h * d_k), w.W_K.resize(d, h * d_k), w.W_V.resize(d, h * d_k);
        w.b_Q.resize(h * d_k), w.b_K.resize(h * d_k), w.b_V.resize(h * d_k);
        for (int i = 0; i < h; ++i) {
            w.W_Q.middleCols(i * d_k, d_k) = qkv.middleRows(3 * i * d_k, d_k).transpose();
            w.W_K.middleCols(i * d_k, d_k) = qkv.middleRows((3 * i + 1) * d_k, d_k).transpose();
            w.W_V.middleCols(i * d_k, d_k) = qkv.middleRows((3 * i + 2) * d_k, d_k).transpose();
            w.b_Q.segment(i * d_k, d_k) = b.segment(3 * i * d_k, d_k);
            w.b_K.segment(i * d_k, d_k) = b.segment((3 * i + 1) * d_k, d_k);
            w.b_V.segment(i * d_k, d_k) = b.segment((3 * i + 2) * d_k, d_k);
        }
        w.W_O = io::toMatrix(t.at(p + "dense.weight")).transpose();
        w.b_O = vectorOf(t.at(p + "dense.bias"));
    } else {  // nn.Linear (out, in): W = weight^T
        const std::string p = "layers." + L + ".self_attn.";
        w.W_Q = io::toMatrix(t.at(p + "q_proj.weight")).transpose();
        w.W_K = io::toMatrix(t.at(p + "k_proj.weight")).transpose();
        w.W_V = io::toMatrix(t.at(p + "v_proj.weight")).transpose();
        w.W_O = io::toMatrix(t.at(p + "o_proj.weight")).transpose();
        if (t.count(p + "q_proj.bias")) {
            w.b_Q = vectorOf(t.at(p + "q_proj.bias"));
            w.b_K = vectorOf(t.at(p + "k_proj.bias"));
            w.b_V = vectorOf(t.at(p + "v_proj.bias"));
            w.b_O = t.count(p + "o_proj.bias") ? vectorOf(t.at(p + "o_proj.bias")) : Eigen::RowVectorXf::Zero(d);
        }
    }
    return w;
}

}  // namespace

TEST(AttentionStorage, F32AttentionIsUsedInPlaceFromTheMap) {
    for (const fs::path& folder : folders(true)) {
        SCOPED_TRACE(folder.string());
        const model::ModelPtr m = io::loadCheckpoint(folder.string());
        ASSERT_EQ(m->dtype, "F32");
        const model::QkvPacking packing = m->config.family == "gpt2"       ? model::QkvPacking::Fused
                                          : m->config.family == "gpt_neox" ? model::QkvPacking::FusedPerHead
                                                                           : model::QkvPacking::Separate;
        for (const model::Block& b : m->blocks) {
            EXPECT_EQ(b.attention.packing, packing);
            EXPECT_TRUE(b.attention.inPlace());  // every q, k, v, o matrix points into the mapped file
        }
    }
}

// F16/BF16: nothing converted at load; a forward converts each layer's attention through the
// cache (counted with the MLP's) and the layer's matrices are not in place.
TEST(AttentionStorage, HalfAttentionIsConvertedWhenALayerIsComputed) {
    for (const char* name : {"gpt2/f16_tied_inner", "gpt2/bf16_prefix_untied", "rotary/qwen2_tied_bf16", "rotary/llama3_scaled"}) {
        SCOPED_TRACE(name);
        const model::ModelPtr m = io::loadCheckpoint((kTestData / name).string(), {}, 1000);  // room for every layer
        ASSERT_NE(m->conversion_cache, nullptr);
        EXPECT_EQ(m->conversion_cache->conversions(), 0);  // nothing converted at load
        EXPECT_EQ(m->conversion_cache->layersHeld(), 0);
        const model::AttentionWeights& a = m->blocks[0].attention;
        EXPECT_FALSE(a.inPlace());
        EXPECT_NE((a.packing == model::QkvPacking::Separate ? a.W_Q : a.W_QKV).type(), model::StorageType::F32);
        model::runModel(*m, {1, 2, 3});
        const long long attention = a.packing == model::QkvPacking::Separate ? 4 : 2;
        const long long mlp = m->config.mlp == model::MlpKind::Gated ? 3 : 2;
        EXPECT_EQ(m->conversion_cache->conversions(), m->config.n_layer * (attention + mlp));
        EXPECT_EQ(m->conversion_cache->layersHeld(), m->config.n_layer);
    }
}

// attentionWeights(l) holds exactly (tolerance 0) what the file holds, in the paper's layout.
TEST(AttentionStorage, OneLayerInThePapersLayoutEqualsTheFile) {
    for (const fs::path& folder : folders(false)) {
        SCOPED_TRACE(folder.string());
        const model::ModelPtr m = io::loadCheckpoint(folder.string());
        std::map<std::string, io::Tensor> tensors = tensorsOf(folder);
        for (int l = 0; l < m->config.n_layer; ++l) {
            SCOPED_TRACE("layer " + std::to_string(l));
            const Weights expected = expectedLayer(*m, tensors, l);
            const std::shared_ptr<const Weights> w = m->attentionWeights(l);
            EXPECT_EQ(w->heads, expected.heads);
            EXPECT_EQ(w->kv_heads, expected.kv_heads);
            EXPECT_EQ(w->d_k, expected.d_k);
            EXPECT_EQ(w->W_Q, expected.W_Q);
            EXPECT_EQ(w->W_K, expected.W_K);
            EXPECT_EQ(w->W_V, expected.W_V);
            EXPECT_EQ(w->W_O, expected.W_O);
            EXPECT_EQ(w->b_Q, expected.b_Q);
            EXPECT_EQ(w->b_K, expected.b_K);
            EXPECT_EQ(w->b_V, expected.b_V);
            EXPECT_EQ(w->b_O, expected.b_O);
            EXPECT_EQ(w->check(), "");
        }
    }
}

// The model's forward (projections through the stored matrices) against core's forward() on
// the paper's layout of the same layer, same input and options.
TEST(AttentionStorage, ForwardThroughTheStoredMatricesEqualsCoresForward) {
    for (const fs::path& folder : folders(false)) {
        SCOPED_TRACE(folder.string());
        const model::ModelPtr m = io::loadCheckpoint(folder.string());
        const int n = std::min(6, m->config.n_positions);
        std::vector<int> ids;
        for (int i = 0; i < n; ++i) ids.push_back((3 * i + 1) % m->config.vocab_size);
        const model::Trace trace = model::runModel(*m, ids);
        double worst = 0;
        for (int l = 0; l < m->config.n_layer; ++l) {
            const Results& got = trace.layers[l].attention;
            const Eigen::MatrixXf& x = trace.layers[l].attention_input;  // (n, d)
            const Results expected = forward(trace.options.attention, *m->attentionWeights(l), x, x);
            ASSERT_EQ(got.output.rows(), expected.output.rows());
            worst = std::max<double>(worst, (got.Q - expected.Q).cwiseAbs().maxCoeff());
            worst = std::max<double>(worst, (got.K - expected.K).cwiseAbs().maxCoeff());
            worst = std::max<double>(worst, (got.V - expected.V).cwiseAbs().maxCoeff());
            worst = std::max<double>(worst, (got.concat - expected.concat).cwiseAbs().maxCoeff());
            worst = std::max<double>(worst, (got.output - expected.output).cwiseAbs().maxCoeff());
            for (int i = 0; i < m->config.n_head; ++i)
                worst = std::max<double>(worst, (got.heads[i].weights - expected.heads[i].weights).cwiseAbs().maxCoeff());
        }
        std::printf("%s: max |stored-matrix forward - forward()| = %.3g\n", folder.filename().c_str(), worst);
        EXPECT_LE(worst, 1e-5);  // float products summed in another order at most
    }
}

// The per-layer Weights are built once while the layer is among the last kLayers asked for.
TEST(AttentionStorage, LayerWeightsAreKeptForTheLastFewLayers) {
    const model::ModelPtr m = io::loadCheckpoint((kTestData / "gpt2/f32_untied").string());
    const model::AttentionWeights& a = m->blocks[0].attention;
    model::LayerWeightsCache cache;
    const std::shared_ptr<const Weights> first = cache.get(0, a);
    EXPECT_EQ(cache.get(0, a), first);  // kept: the same copy
    EXPECT_EQ(cache.built(), 1);
    for (int layer = 1; layer <= model::LayerWeightsCache::kLayers; ++layer) cache.get(layer, a);
    EXPECT_EQ(cache.built(), 1 + model::LayerWeightsCache::kLayers);
    cache.get(model::LayerWeightsCache::kLayers, a);  // the most recent: kept
    EXPECT_EQ(cache.built(), 1 + model::LayerWeightsCache::kLayers);
    EXPECT_NE(cache.get(0, a), first);  // the oldest went: built again
    EXPECT_EQ(cache.built(), 2 + model::LayerWeightsCache::kLayers);
    model::Model copy = *m;
    EXPECT_EQ(copy.attention_layers.built(), 0);  // a copy starts empty
    try {
        m->attentionWeights(m->config.n_layer);
        ADD_FAILURE() << "a layer past the model was given";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "layer 2 does not exist (the model has 2 layers)");
    }
}
