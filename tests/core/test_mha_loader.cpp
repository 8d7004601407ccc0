// Loading PyTorch nn.MultiheadAttention state dicts: the weight convention, the reference
// tensors produced by PyTorch (tests/data/mha), and every way a file can be unusable.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "TempDirTest.h"
#include "common/AllClose.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "Engine.h"
#include "io/MhaLoader.h"
#include "io/Npy.h"
#include "io/Safetensors.h"

namespace fs = std::filesystem;
using headscope::Weights;
using headscope::io::IoError;
using headscope::io::loadMultiheadAttention;
using headscope::io::Tensor;
using headscope::io::toMatrix;
using ::testing::HasSubstr;
using Tensors = std::map<std::string, Tensor>;

namespace {

const fs::path kMhaDir = fs::path(HEADSCOPE_TEST_DATA_DIR) / "mha";

// Deterministic, distinct values for a tensor of the given shape.
Tensor patterned(std::vector<std::int64_t> shape, int seed) {
    Tensor tensor;
    tensor.shape = std::move(shape);
    tensor.data.resize(static_cast<std::size_t>(tensor.size()));
    for (std::size_t i = 0; i < tensor.data.size(); ++i)
        tensor.data[i] = 0.5f * std::sin(static_cast<float>(seed * 1000 + static_cast<int>(i)));
    return tensor;
}

// A state dict of nn.MultiheadAttention(d, h, bias) with names under `prefix`.
Tensors stateDict(std::int64_t d, bool bias = true, const std::string& prefix = "", int seed = 1) {
    Tensors tensors = {{prefix + "in_proj_weight", patterned({3 * d, d}, seed)},
                       {prefix + "out_proj.weight", patterned({d, d}, seed + 1)}};
    if (bias) {
        tensors[prefix + "in_proj_bias"] = patterned({3 * d}, seed + 2);
        tensors[prefix + "out_proj.bias"] = patterned({d}, seed + 3);
    }
    return tensors;
}

class MhaLoaderTest : public TempDirTest {
protected:

    std::string save(const Tensors& tensors) const {
        const std::string file = (dir_ / "weights.safetensors").string();
        headscope::io::writeSafetensors(file, tensors);
        return file;
    }

    Weights load(const Tensors& tensors, int heads, const std::string& prefix = "") const {
        return loadMultiheadAttention(save(tensors), heads, prefix);
    }

    // The IoError message of loading the tensors ("" when loading succeeds).
    std::string errorLoading(const Tensors& tensors, int heads, const std::string& prefix = "") const {
        try {
            load(tensors, heads, prefix);
        } catch (const IoError& error) {
            return error.what();
        }
        return "";
    }

};

}  // namespace

// ---- The weight convention ---------------------------------------------------------

TEST_F(MhaLoaderTest, FusedInProjectionIsSplitIntoTransposedRowVectorWeights) {
    const int d = 6;
    const Tensors tensors = stateDict(d);
    const Weights w = load(tensors, 3);
    EXPECT_EQ(w.heads, 3);
    EXPECT_EQ(w.kv_heads, 3);
    EXPECT_EQ(w.d_k, 2);
    EXPECT_EQ(w.d_v, 2);
    const Eigen::MatrixXf in_proj = toMatrix(tensors.at("in_proj_weight"));  // (3d, d)
    const Eigen::MatrixXf out_proj = toMatrix(tensors.at("out_proj.weight"));  // (d, d)
    for (int r = 0; r < d; ++r) {
        for (int c = 0; c < d; ++c) {
            EXPECT_EQ(w.W_Q(r, c), in_proj(c, r));
            EXPECT_EQ(w.W_K(r, c), in_proj(d + c, r));
            EXPECT_EQ(w.W_V(r, c), in_proj(2 * d + c, r));
            EXPECT_EQ(w.W_O(r, c), out_proj(c, r));
        }
    }
    const std::vector<float>& in_bias = tensors.at("in_proj_bias").data;
    for (int i = 0; i < d; ++i) {
        EXPECT_EQ(w.b_Q(i), in_bias[static_cast<std::size_t>(i)]);
        EXPECT_EQ(w.b_K(i), in_bias[static_cast<std::size_t>(d + i)]);
        EXPECT_EQ(w.b_V(i), in_bias[static_cast<std::size_t>(2 * d + i)]);
        EXPECT_EQ(w.b_O(i), tensors.at("out_proj.bias").data[static_cast<std::size_t>(i)]);
    }
}

// headscope::forward on the loaded layer against nn.MultiheadAttention's own results
// (tests/data/make_mha_reference.py, float32 on the CPU). The largest differences measured
// over the five cases are 1.2e-7 (attention weights) and 1.8e-7 (outputs); 1e-6 leaves 5x
// of room for summation-order noise and none for a real mistake (a wrong scale, mask or
// transpose is off by 1e-2 or more).
constexpr double kTorchTolerance = 1e-6;

TEST_F(MhaLoaderTest, EngineReproducesPyTorchAttentionAndOutputForEveryReferenceCase) {
    struct Case {
        std::string name;
        int heads;
        bool causal;
        std::string prefix;
        bool cross;
    };
    for (const Case& c : {Case{"self_small", 2, false, "", false}, Case{"causal", 3, true, "", false},
                          Case{"cross", 4, false, "", true}, Case{"nobias_prefix", 4, false, "layers.0.self_attn.", false},
                          Case{"separate_qkv", 2, false, "", false}}) {
        SCOPED_TRACE(c.name);
        const fs::path dir = kMhaDir / c.name;
        const Weights w = loadMultiheadAttention((dir / "weights.safetensors").string(), c.heads, c.prefix);
        EXPECT_EQ(w.hasBias(), c.name != "nobias_prefix");
        const Eigen::MatrixXf x = toMatrix(headscope::io::readNpy((dir / "query.npy").string()));  // (n_q, d)
        const Eigen::MatrixXf source =
            c.cross ? toMatrix(headscope::io::readNpy((dir / "key_value.npy").string())) : x;  // (n_kv, d)
        headscope::AttentionOptions options;
        options.mask = c.causal ? headscope::MaskKind::Causal : headscope::MaskKind::None;
        const headscope::Results result = headscope::forward(options, w, x, source);

        const Tensor attention = headscope::io::readNpy((dir / "expected_attention.npy").string());  // (h, n_q, n_kv)
        ASSERT_EQ(attention.shape, (std::vector<std::int64_t>{c.heads, x.rows(), source.rows()}));
        std::vector<float> ours;  // (h, n_q, n_kv) in C order, as PyTorch stores it
        for (const headscope::HeadResult& head : result.heads)
            for (Eigen::Index r = 0; r < head.weights.rows(); ++r)
                for (Eigen::Index k = 0; k < head.weights.cols(); ++k) ours.push_back(head.weights(r, k));
        EXPECT_TRUE(headscope::test::allClose(ours, attention.data, kTorchTolerance, 0, attention.shape));
        const Eigen::MatrixXf output = toMatrix(headscope::io::readNpy((dir / "expected_output.npy").string()));
        EXPECT_TRUE(headscope::test::allClose(result.output, output, kTorchTolerance));
        std::printf("%s: attention %s\n        output %s\n", c.name.c_str(),
                    headscope::test::allClose(ours, attention.data, 0, 0, attention.shape).message(),
                    headscope::test::allClose(result.output, output, 0).message());
    }
}

TEST_F(MhaLoaderTest, SeparateQkvNamesGiveTheSameWeightsAsTheFusedInProjection) {
    const int d = 4;
    Tensors tensors = stateDict(d);
    const Weights fused = load(tensors, 2);
    const Tensor in_proj = tensors.at("in_proj_weight");
    tensors.erase("in_proj_weight");
    const char* names[] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
    for (int part = 0; part < 3; ++part) {
        Tensor slice;
        slice.shape = {d, d};
        slice.data.assign(in_proj.data.begin() + part * d * d, in_proj.data.begin() + (part + 1) * d * d);
        tensors[names[part]] = slice;
    }
    const Weights separate = load(tensors, 2);
    EXPECT_EQ(separate.W_Q, fused.W_Q);
    EXPECT_EQ(separate.W_K, fused.W_K);
    EXPECT_EQ(separate.W_V, fused.W_V);
    EXPECT_EQ(separate.W_O, fused.W_O);
    EXPECT_EQ(separate.b_V, fused.b_V);
}

TEST_F(MhaLoaderTest, PrefixSelectsOneLayerAmongSeveral) {
    Tensors tensors = stateDict(4, true, "layers.0.self_attn.", 1);
    tensors.merge(stateDict(4, true, "layers.1.self_attn.", 7));
    const std::string file = save(tensors);
    const Weights layer0 = loadMultiheadAttention(file, 2, "layers.0.self_attn.");
    const Weights layer1 = loadMultiheadAttention(file, 2, "layers.1.self_attn.");
    EXPECT_EQ(layer1.W_O, toMatrix(tensors.at("layers.1.self_attn.out_proj.weight")).transpose());
    EXPECT_NE(layer0.W_Q, layer1.W_Q);
}

TEST_F(MhaLoaderTest, FileWithoutBiasesLeavesAllFourBiasesEmpty) {
    const Weights w = load(stateDict(4, false), 1);
    EXPECT_FALSE(w.hasBias());
    EXPECT_EQ(w.b_Q.size() + w.b_K.size() + w.b_V.size() + w.b_O.size(), 0);
}

TEST_F(MhaLoaderTest, AMissingHalfOfTheBiasesIsTreatedAsZeros) {
    Tensors only_in = stateDict(4);
    only_in.erase("out_proj.bias");
    const Weights w1 = load(only_in, 2);
    EXPECT_EQ(w1.b_O, Eigen::RowVectorXf::Zero(4));
    EXPECT_EQ(w1.b_K(0), only_in.at("in_proj_bias").data[4]);

    Tensors only_out = stateDict(4);
    only_out.erase("in_proj_bias");
    const Weights w2 = load(only_out, 2);
    EXPECT_EQ(w2.b_Q, Eigen::RowVectorXf::Zero(4));
    EXPECT_EQ(w2.b_K, Eigen::RowVectorXf::Zero(4));
    EXPECT_EQ(w2.b_V, Eigen::RowVectorXf::Zero(4));
    EXPECT_EQ(w2.b_O(3), only_out.at("out_proj.bias").data[3]);
}

TEST_F(MhaLoaderTest, TensorsOfOtherLayersAndDtypesDoNotGetInTheWay) {
    // An I64 tensor elsewhere in a checkpoint (e.g. position_ids) must not block loading.
    const std::string header = R"({"position_ids": {"dtype": "I64", "shape": [2], "data_offsets": [0, 16]},)"
                               R"( "in_proj_weight": {"dtype": "F32", "shape": [3, 1], "data_offsets": [16, 28]},)"
                               R"( "out_proj.weight": {"dtype": "F32", "shape": [1, 1], "data_offsets": [28, 32]}})";
    std::string bytes;
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    bytes += header + std::string(16, '\0');
    for (const float value : {1.0f, 2.0f, 3.0f, 4.0f}) bytes.append(reinterpret_cast<const char*>(&value), 4);
    const std::string file = (dir_ / "mixed.safetensors").string();
    std::ofstream(file, std::ios::binary) << bytes;
    const Weights w = loadMultiheadAttention(file, 1);
    EXPECT_EQ(w.W_V(0, 0), 3.0f);
    EXPECT_EQ(w.W_O(0, 0), 4.0f);
}

// ---- Errors ------------------------------------------------------------------------

TEST_F(MhaLoaderTest, APrimeEmbedDimOfAnUnknownDtypeIsRefusedAtOnce) {
    // 177 bytes claiming a 715827881-wide layer in a dtype the reader does not know: the
    // reader refuses the shape, so the divisor hint never searches up to that number.
    const fs::path file = fs::path(HEADSCOPE_FUZZ_REGRESSIONS_DIR) / "mha_loader/unknown_dtype_prime_embed_dim.safetensors";
    try {
        loadMultiheadAttention(file.string(), 2);
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("claims more elements than its 0 data bytes can hold"));
    }
}

TEST_F(MhaLoaderTest, TheHeadCountHintListsOnlyCountsHeadScopeAccepts) {
    // 262 = 2 x 131: the hint searches 1 to 128 heads, whatever embed_dim is.
    // Only the list is checked: the message also names the temporary file, whose path holds
    // the test's process id, and that may contain "131".
    const std::string message = errorLoading(stateDict(262, false), 3);
    const std::string hint = "heads=3 does not divide embed_dim 262; head counts that work: ";
    const std::size_t at = message.find(hint);
    ASSERT_NE(at, std::string::npos) << message;
    EXPECT_EQ(message.substr(at + hint.size()), "1, 2");
}

TEST_F(MhaLoaderTest, HeadsBelowOneIsAnError) {
    EXPECT_THAT(errorLoading(stateDict(4), 0), HasSubstr("at least 1"));
    EXPECT_THAT(errorLoading(stateDict(4), -3), HasSubstr("at least 1"));
}

TEST_F(MhaLoaderTest, HeadsThatDoNotDivideEmbedDimListTheCountsThatWork) {
    const std::string message = errorLoading(stateDict(8), 3);
    EXPECT_THAT(message, HasSubstr("heads=3 does not divide embed_dim 8"));
    EXPECT_THAT(message, HasSubstr("1, 2, 4, 8"));
    EXPECT_THAT(errorLoading(stateDict(8), 16), HasSubstr("1, 2, 4, 8"));
}

TEST_F(MhaLoaderTest, MissingInProjectionListsEveryNameLookedForWithThePrefix) {
    Tensors tensors = stateDict(4, true, "enc.");
    tensors.erase("enc.in_proj_weight");
    const std::string message = errorLoading(tensors, 2, "enc.");
    for (const char* name : {"'enc.in_proj_weight'", "'enc.q_proj_weight'", "'enc.k_proj_weight'", "'enc.v_proj_weight'"})
        EXPECT_THAT(message, HasSubstr(name));
    EXPECT_THAT(message, HasSubstr("weights.safetensors"));
}

TEST_F(MhaLoaderTest, IncompleteSeparateProjectionsAreReportedMissing) {
    Tensors tensors = stateDict(4);
    tensors.erase("in_proj_weight");
    tensors["q_proj_weight"] = patterned({4, 4}, 3);
    tensors["k_proj_weight"] = patterned({4, 4}, 4);
    EXPECT_THAT(errorLoading(tensors, 2), HasSubstr("'v_proj_weight'"));
}

TEST_F(MhaLoaderTest, MissingOutputProjectionIsNamed) {
    Tensors tensors = stateDict(4);
    tensors.erase("out_proj.weight");
    EXPECT_THAT(errorLoading(tensors, 2), HasSubstr("no tensor 'out_proj.weight'"));
}

TEST_F(MhaLoaderTest, WrongPrefixSuggestsThePrefixesInTheFile) {
    const std::string message = errorLoading(stateDict(4, true, "encoder.layers.3.self_attn."), 2);
    EXPECT_THAT(message, HasSubstr("'in_proj_weight'"));
    EXPECT_THAT(message, HasSubstr("'encoder.layers.3.self_attn.'"));
}

TEST_F(MhaLoaderTest, WrongShapesSayWhatWasExpectedAndFound) {
    const auto withTensor = [](const std::string& name, Tensor tensor) {
        Tensors tensors = stateDict(8);
        tensors[name] = std::move(tensor);
        return tensors;
    };
    EXPECT_THAT(errorLoading(withTensor("in_proj_weight", patterned({20, 8}, 1)), 2),
                HasSubstr("shape (20, 8), expected (3 * embed_dim, embed_dim) = (24, 8)"));
    EXPECT_THAT(errorLoading(withTensor("in_proj_weight", patterned({24}, 1)), 2), HasSubstr("shape (24,), expected"));
    EXPECT_THAT(errorLoading(withTensor("out_proj.weight", patterned({8, 4}, 1)), 2),
                HasSubstr("'out_proj.weight' has shape (8, 4), expected (8, 8)"));
    EXPECT_THAT(errorLoading(withTensor("in_proj_bias", patterned({8}, 1)), 2), HasSubstr("(8,), expected (24,)"));
    EXPECT_THAT(errorLoading(withTensor("out_proj.bias", patterned({1, 8}, 1)), 2), HasSubstr("(1, 8), expected (8,)"));
    EXPECT_THAT(errorLoading(withTensor("in_proj_weight", patterned({0, 0}, 1)), 2), HasSubstr("expected"));
}

TEST_F(MhaLoaderTest, NonFiniteValuesNameTheTensorAndTheFirstBadIndex) {
    Tensors tensors = stateDict(4);
    tensors["out_proj.weight"].data[1 * 4 + 2] = std::numeric_limits<float>::quiet_NaN();
    tensors["out_proj.weight"].data[3 * 4 + 3] = std::numeric_limits<float>::quiet_NaN();
    const std::string message = errorLoading(tensors, 2);
    EXPECT_THAT(message, HasSubstr("'out_proj.weight'"));
    EXPECT_THAT(message, HasSubstr("nan at index [1, 2]"));

    Tensors infinite = stateDict(4);
    infinite["in_proj_bias"].data[5] = -std::numeric_limits<float>::infinity();
    EXPECT_THAT(errorLoading(infinite, 2), HasSubstr("'in_proj_bias' has the non-finite value -inf at index [5]"));
}

TEST_F(MhaLoaderTest, KdimOrVdimDifferentFromEmbedDimIsUnsupported) {
    Tensors tensors = stateDict(4);
    tensors.erase("in_proj_weight");
    tensors["q_proj_weight"] = patterned({4, 4}, 3);
    tensors["k_proj_weight"] = patterned({4, 6}, 4);
    tensors["v_proj_weight"] = patterned({4, 6}, 5);
    EXPECT_THAT(errorLoading(tensors, 2), HasSubstr("kdim / vdim (6) different from embed_dim (4) is not supported"));
}

TEST_F(MhaLoaderTest, AddBiasKvIsUnsupported) {
    Tensors tensors = stateDict(4);
    tensors["bias_k"] = patterned({1, 1, 4}, 8);
    tensors["bias_v"] = patterned({1, 1, 4}, 9);
    EXPECT_THAT(errorLoading(tensors, 2), HasSubstr("add_bias_kv"));
}

TEST_F(MhaLoaderTest, MissingOrBrokenFileIsAnError) {
    EXPECT_THAT(errorLoading({}, 2), HasSubstr("no tensor"));
    try {
        loadMultiheadAttention((dir_ / "absent.safetensors").string(), 2);
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("does not exist"));
    }
}

TEST_F(MhaLoaderTest, RealGpt2CheckpointIsRefusedWithAClearMessage) {
    const fs::path model = fs::path(HEADSCOPE_SHARED_MODELS_DIR) / "nano-sort/model.safetensors";
    if (!fs::exists(model)) GTEST_SKIP() << "real checkpoint not found at " << model;
    try {
        loadMultiheadAttention(model.string(), 3, "h.0.attn.");
        FAIL() << "no IoError";
    } catch (const IoError& error) {
        EXPECT_THAT(error.what(), HasSubstr("'h.0.attn.in_proj_weight'"));
        EXPECT_THAT(error.what(), HasSubstr("h.0.attn.c_attn"));
    }
}
