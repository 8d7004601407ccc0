#pragma once
// What the transformers reference tests share (test_hf_reference, test_hf_reference_keys,
// test_hf_reference_rope, test_hf_reference_hub_cache): where the references lie, the tolerances,
// the comparison of a folder's forward with transformers' own, and the fixture that copies a
// reference folder with its config.json edited.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Npz.h"
#include "io/Checkpoint.h"
#include "io/Tensor.h"
#include "model/Forward.h"

namespace headscope::test_support::hf_reference {

namespace fs = std::filesystem;

inline const fs::path kReference = fs::path(HEADSCOPE_SHARED_MODELS_DIR).parent_path() / "hf-reference";
// Written the same way, for what ../shared/hf-reference lacks (tests/data/make_hf_extra_reference.py):
// NoPE layers, LongRoPE short and long, Phi-3's partial rotation, Qwen2's per-layer window, a Gemma 3
// image-text folder's text tower. In the project, so these run where ../shared is absent.
inline const fs::path kExtra = fs::path(HEADSCOPE_TEST_DATA_DIR) / "hf_extra";
inline fs::path referenceFolder(const std::string& name) {
    return fs::exists(kExtra / name) ? kExtra / name : kReference / name;
}

// Float32 forward passes agree to rounding; measured maxima are printed. Layer 0's attention, which
// no earlier layer's rounding reaches, within 2e-6 (measured 3e-7 to 1.5e-6) in every family; over
// every layer, attention (in [0, 1]) within 1e-5 and log-probabilities within 3e-5 (measured at most
// 5.7e-6 and 2.3e-5). Gemma 2 within 4e-6, 2e-5 and 1e-4: its embeddings times sqrt(d_model) and
// scores up to 33 before the softcap carry each float's rounding further (layer 0 measured 1.4e-6
// built for AVX-512 on an Intel Xeon, 2.2e-6 for AVX2 on an AMD EPYC; every layer 1.1e-5 and 5.9e-5).
struct Tolerance {
    double first_layer, attention, log_probs;
};
inline Tolerance toleranceFor(const std::string& folder) {
    return folder.rfind("gemma2", 0) == 0 ? Tolerance{4e-6, 2e-5, 1e-4} : Tolerance{2e-6, 1e-5, 3e-5};
}

struct Compared {
    double attention = INFINITY, log_probs = INFINITY;
    double first_layer = INFINITY;  // attention of layer 0, before any earlier layer's rounding adds up
};

// Row-wise log-softmax in double. (n, vocab) -> (n, vocab)
inline Eigen::MatrixXd logSoftmax(const Eigen::MatrixXf& logits) {
    Eigen::MatrixXd x = logits.cast<double>();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double top = x.row(r).maxCoeff();
        const double sum = (x.row(r).array() - top).exp().sum();
        x.row(r).array() -= top + std::log(sum);
    }
    return x;
}

// The reference's input: its ids, and the encoder cases' token types (a sentence pair) and padding
// (attention_mask 0).
struct ReferenceInput {
    std::vector<int> ids;
    model::ForwardOptions options;
};
inline ReferenceInput referenceInput(const std::map<std::string, io::Tensor>& ref) {
    ReferenceInput input;
    for (float id : ref.at("ids").data) input.ids.push_back(static_cast<int>(id));
    input.options.all_logits = true;
    if (ref.count("token_type_ids"))
        for (float t : ref.at("token_type_ids").data) input.options.token_types.push_back(static_cast<int>(t));
    if (ref.count("attention_mask")) {
        const std::vector<float>& mask = ref.at("attention_mask").data;
        for (std::size_t k = 0; k < mask.size(); ++k)
            if (mask[k] == 0) input.options.attention.padded_keys.push_back(static_cast<int>(k));
    }
    return input;
}

inline Compared compare(const fs::path& folder, const fs::path& reference_folder) {
    const auto ref = test_support::readNpz(reference_folder / "ref.npz");
    const ReferenceInput input = referenceInput(ref);
    const model::ModelPtr m = io::loadCheckpoint(folder.string());
    const model::Trace trace = model::runModel(*m, input.ids, input.options);
    Compared c{0, 0};
    const std::int64_t n = trace.n();
    for (std::size_t l = 0; l < trace.layers.size(); ++l) {
        const io::Tensor& expected = ref.at("att" + std::to_string(l));
        const auto& heads = trace.layers[l].attention.heads;
        if (expected.shape != std::vector<std::int64_t>{std::int64_t(heads.size()), n, n}) return {};
        for (std::size_t h = 0; h < heads.size(); ++h)
            for (std::int64_t q = 0; q < n; ++q)
                for (std::int64_t k = 0; k < n; ++k) {
                    const float got = heads[h].weights(q, k);
                    if (!std::isfinite(got)) return {};
                    c.attention = std::max(c.attention, double(std::abs(expected.data[(h * n + q) * n + k] - got)));
                }
        if (l == 0) c.first_layer = c.attention;
    }
    if (ref.count("att" + std::to_string(trace.layers.size()))) return {};  // a layer left out
    const Eigen::MatrixXd want = logSoftmax(io::toMatrix(ref.at("logits")));
    const Eigen::MatrixXd got = logSoftmax(trace.logits);
    if (got.rows() != want.rows() || got.cols() != want.cols() || got.hasNaN()) return {};
    c.log_probs = (got - want).cwiseAbs().maxCoeff();
    return c;
}

class HfReference : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (!fs::exists(referenceFolder(GetParam()) / "ref.npz"))
            GTEST_SKIP() << "the transformers reference " << (referenceFolder(GetParam()))
                         << " is absent (it lives beside "
                         << "the project in ../shared/hf-reference, never in it)";
        static int counter = 0;
        dir_ = fs::temp_directory_path() /
               ("headscope_hf_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    // The reference folder with its config.json edited; the weights are linked, not copied.
    // A new folder each call.
    fs::path editedCopy(const std::function<void(nlohmann::json&)>& edit) {
        const fs::path from = referenceFolder(GetParam()), to = dir_ / ("copy" + std::to_string(copies_++));
        fs::create_directories(to);
        for (const auto& entry : fs::directory_iterator(from))
            if (entry.path().filename() != "config.json" && entry.path().filename() != "ref.npz")
                fs::create_symlink(fs::absolute(entry.path()), to / entry.path().filename());
        nlohmann::json config = nlohmann::json::parse(std::ifstream(from / "config.json"));
        edit(config);
        std::ofstream(to / "config.json") << config.dump(2);
        return to;
    }
    fs::path dir_;
    int copies_ = 0;
};

inline void expectAgrees(const std::string& what, const Compared& c, const Tolerance& tolerance) {
    std::printf("%s: max |attention - transformers| %.2e (layer 0: %.2e), max |log p - transformers| %.2e\n",
                what.c_str(), c.attention, c.first_layer, c.log_probs);
    EXPECT_LE(c.first_layer, tolerance.first_layer) << what;
    EXPECT_LE(c.attention, tolerance.attention) << what;
    EXPECT_LE(c.log_probs, tolerance.log_probs) << what;
}

}  // namespace headscope::test_support::hf_reference
