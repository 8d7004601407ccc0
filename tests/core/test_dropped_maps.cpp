// A long input's forward (ForwardOptions::keep_maps false, issue 35 item 4) against one that kept
// every map: what it drops is recomputed bit for bit, what it keeps (thumbnails, pattern shares,
// the last position's outputs) equals the kept run's, and the window's layer in view keeps its maps.
// Small random rotary checkpoints (tests/data/rotary): GQA, a sliding window, a parallel residual.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "Downsample.h"
#include "Engine.h"
#include "TempDirTest.h"
#include "io/Checkpoint.h"
#include "io/MatrixExport.h"
#include "io/Npy.h"
#include "model/Attribution.h"
#include "model/Forward.h"
#include "model/HeadPatterns.h"
#include "model/WeightSpectra.h"
#include "common/TestData.h"

namespace fs = std::filesystem;
using namespace headscope;
using test::kRotaryCases;

namespace {


class DroppedMaps : public TempDirTest {
protected:
    // A copy of a reference case with its config.json edited.
    fs::path copyOf(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
        const fs::path to = dir_ / name;
        fs::copy(kRotaryCases / name, to, fs::copy_options::recursive);
        nlohmann::json config = nlohmann::json::parse(std::ifstream(to / "config.json"));
        edit(config);
        std::ofstream(to / "config.json") << config.dump();
        return to;
    }
};

// Bytes of every matrix a trace's layers hold (its logits over the vocabulary left out).
double heldBytes(const model::Trace& trace) {
    double bytes = 0;
    const auto add = [&bytes](const auto& m) {
        bytes += double(m.size()) * sizeof(typename std::decay_t<decltype(m)>::Scalar);
    };
    for (const model::LayerTrace& layer : trace.layers) {
        const Results& r = layer.attention;
        for (const auto* m : {&layer.residual, &layer.attention_input, &r.Q, &r.K, &r.V, &r.Q_projected, &r.K_projected,
                              &r.concat, &r.output, &layer.pattern_shares})
            add(*m);
        add(r.allowed);
        for (const HeadResult& head : r.heads)
            add(head.logits), add(head.weights), add(head.output), add(head.pooled_logits);
        for (const Eigen::MatrixXf& thumbnail : layer.thumbnails) add(thumbnail);
    }
    return bytes;
}

}  // namespace

// What a long input holds (issue 35 item 4: `model` refused 2,048 tokens on a 1B model, counting
// every layer's projections as kept): model::traceBytes with the maps dropped is the dropped trace
// and the layer in view (its weights and pooled logits kept, not its logits), and no more than that
// within 25 %.
TEST_F(DroppedMaps, TheirEstimateIsWhatTheTraceAndTheLayerInViewHold) {
    const model::ModelPtr m = io::loadCheckpoint(copyOf("qwen2_tied", [](nlohmann::json& c) {
                                                     c["max_position_embeddings"] = 120;
                                                     c["num_hidden_layers"] = 2;
                                                 }).string());
    const std::vector<int> ids(120, 5);
    model::ForwardOptions options;
    const double kept = heldBytes(model::runModel(*m, ids, options));
    options.keep_maps = false;
    const model::Trace dropped = model::runModel(*m, ids, options);
    model::Trace in_view;  // the layer in view alone, as a window holds it
    in_view.layers.push_back({});
    in_view.layers.back().attention = model::layerAnalysis(*m, dropped, 1).results;
    const double held = heldBytes(dropped) + heldBytes(in_view);
    const double estimate = model::traceBytes(m->config, int(ids.size()), false);
    EXPECT_GE(estimate, held);
    EXPECT_LE(estimate, 1.25 * held);
    EXPECT_GE(model::traceBytes(m->config, int(ids.size())), kept);
    EXPECT_LE(model::traceBytes(m->config, int(ids.size())), 1.25 * kept);
    EXPECT_LT(estimate, 0.5 * model::traceBytes(m->config, int(ids.size())));
}

// The Model tab's panels are the forward's thumbnails wherever a map is larger than a panel's
// cells, kept maps included, so the window downsamples nothing: each is the map downsampled, bit
// for bit; a map of fewer tokens is its own thumbnail (none kept).
TEST_F(DroppedMaps, KeptMapsLargerThanAPanelComeWithTheirThumbnails) {
    const model::ModelPtr m = io::loadCheckpoint(copyOf("qwen2_tied", [](nlohmann::json& c) {
                                                     c["max_position_embeddings"] = 100;
                                                 }).string());
    std::vector<int> ids;
    for (int i = 0; i < 100; ++i) ids.push_back((i * 7) % 16);
    const model::Trace long_trace = model::runModel(*m, ids, {});
    for (const model::LayerTrace& layer : long_trace.layers) {
        ASSERT_TRUE(layer.keptMaps());
        ASSERT_EQ(layer.thumbnails.size(), layer.attention.heads.size());
        for (std::size_t h = 0; h < layer.thumbnails.size(); ++h) {
            const Eigen::MatrixXf& weights = layer.attention.heads[h].weights;  // (100, 100)
            EXPECT_EQ(layer.thumbnails[h].rows(), model::kThumbnailCells);
            EXPECT_EQ(layer.thumbnails[h], downsample(weights, model::kThumbnailCells, model::kThumbnailCells, Pool::Max));
            EXPECT_EQ(layer.thumbnails[h].maxCoeff(), weights.maxCoeff());
        }
    }
    const model::Trace short_trace = model::runModel(*m, std::vector<int>(ids.begin(), ids.begin() + model::kThumbnailCells), {});
    for (const model::LayerTrace& layer : short_trace.layers) EXPECT_TRUE(layer.thumbnails.empty());
}

// A long input keeps one layer's maps (issue 35 item 4): a run that drops them recomputes any layer's
// exactly as the run that kept them (bit for bit, heads off included), and keeps each head's
// thumbnail, its weights downsampled. Rotary, GQA, a sliding window, a parallel residual.
TEST_F(DroppedMaps, AreRecomputedExactlyForTheLayerInView) {
    const fs::path mistral = copyOf("llama3_scaled", [](nlohmann::json& c) {
        c["model_type"] = "mistral";
        c["sliding_window"] = 5;
    });
    for (const fs::path& folder : {mistral, kRotaryCases / "qwen2_tied", kRotaryCases / "neox_sequential"}) {
        const model::ModelPtr m = io::loadCheckpoint(folder.string());
        const std::vector<int> ids = {1, 5, 9, 2, 7, 5, 9, 3, 1, 5, 9};
        model::ForwardOptions options;
        options.ablation.heads = {{1, 0}};
        const model::Trace kept = model::runModel(*m, ids, options);
        options.keep_maps = false;
        const model::Trace dropped = model::runModel(*m, ids, options);
        const model::WeightSpectraCache cache(m);
        ASSERT_EQ(dropped.layers.size(), kept.layers.size());
        for (std::size_t l = 0; l < kept.layers.size(); ++l) {
            EXPECT_FALSE(dropped.layers[l].keptMaps());
            EXPECT_TRUE(kept.layers[l].thumbnails.empty());
            const Results again = model::layerAttention(*m, dropped, int(l));
            const Results& expected = kept.layers[l].attention;
            const Analysis analysis = model::layerAnalysis(*m, dropped, int(l));
            ASSERT_EQ(again.heads.size(), expected.heads.size());
            // A hovered cell and a zoomed window: the kept map's numbers, from their tiles alone (the
            // head's whole map is not computed for them: none is kept afterwards).
            for (std::size_t h = 0; h < expected.heads.size(); ++h) {
                const Eigen::MatrixXf& want = expected.heads[h].logits;
                for (int q = 0; q < int(want.rows()); ++q)
                    for (int k = 0; k < int(want.cols()); ++k)
                        ASSERT_EQ(analysis.logitAt(int(h), q, k), want(q, k)) << folder << " layer " << l << " head " << h;
                EXPECT_EQ(analysis.logitsWindow(int(h), 2, 3, 7, 5), want.block(2, 3, 7, 5)) << folder << " layer " << l;
                EXPECT_EQ(analysis.recomputed_logits.find(int(h)), nullptr) << folder << " layer " << l << " head " << h;
            }
            EXPECT_EQ(again.allowed, expected.allowed) << folder << " layer " << l;
            EXPECT_EQ(again.output, expected.output) << folder << " layer " << l;
            for (std::size_t h = 0; h < expected.heads.size(); ++h) {
                EXPECT_EQ(again.heads[h].weights, expected.heads[h].weights) << folder << " layer " << l << " head " << h;
                // Its weights kept, its logits given back: computed again, the same numbers.
                EXPECT_EQ(again.heads[h].logits.size(), 0) << folder << " layer " << l << " head " << h;
                EXPECT_EQ(*analysis.headLogits(int(h)), expected.heads[h].logits)
                    << folder << " layer " << l << " head " << h;
                EXPECT_EQ(dropped.layers[l].thumbnails[h], downsample(expected.heads[h].weights, 11, 11, Pool::Max));
            }
            EXPECT_EQ(analysis.results.heads[0].weights, expected.heads[0].weights);
            // An export writes the logits computed again: the kept map's.
            const std::string out = (dir_ / ("export_" + std::to_string(l))).string();
            io::exportMatrices(analysis, out, {io::MatrixFormat::Npy});
            const io::Tensor written = io::readNpy(out + "/head_1_logits.npy");
            ASSERT_EQ(written.shape,
                      (std::vector<std::int64_t>{expected.heads[1].logits.rows(), expected.heads[1].logits.cols()}));
            EXPECT_EQ(io::toMatrix(written), expected.heads[1].logits) << folder << " layer " << l;
            // The equivalence check reads the logits computed again: the residuals of the kept maps.
            Analysis checked = analysis, whole = model::layerAnalysis(*m, kept, int(l));
            addEquivalence(checked);
            addEquivalence(whole);
            ASSERT_TRUE(checked.equivalence && whole.equivalence);
            EXPECT_EQ(checked.equivalence->fused_vs_per_head, whole.equivalence->fused_vs_per_head)
                << folder << " layer " << l;
            EXPECT_EQ(checked.equivalence->factored_vs_merged, whole.equivalence->factored_vs_merged)
                << folder << " layer " << l;
            // The pooled logits of the pictures: from the maps computed again, those of the kept maps
            // (none pooled as they went: the map is smaller than the pictures').
            const PooledMaps pooled = poolMaps(analysis.results, analysis.attentionOptions(), 4);
            for (std::size_t h = 0; h < expected.heads.size(); ++h) {
                EXPECT_EQ(analysis.results.heads[h].pooled_logits.size(), 0) << folder;
                const Eigen::MatrixXf want =
                    downsample(expected.heads[h].logits, 4, 4, Pool::Extreme, expected.allowed);
                const Eigen::ArrayXXf got = pooled.logits[h].array();
                EXPECT_TRUE((got == want.array() || (got.isNaN() && want.array().isNaN())).all())
                    << folder << " layer " << l << " head " << h;
            }
            // Kept for later layers and the attribution: the residual, the outputs at the last position;
            // of the mask, the last query's row (the Model tab reads a sliding window from it).
            EXPECT_EQ(dropped.layers[l].attention_input.size(), 0) << folder << " layer " << l;
            EXPECT_EQ(model::attentionInput(*m, dropped, int(l)), kept.layers[l].attention_input) << folder << " layer " << l;
            EXPECT_EQ(dropped.layers[l].attention.output, expected.output.bottomRows(1)) << folder << " layer " << l;
            EXPECT_EQ(dropped.layers[l].attention.allowed, expected.allowed.bottomRows(1)) << folder << " layer " << l;
        }
        EXPECT_EQ(dropped.logits, kept.logits) << folder;
        // What each head looks at, taken from each map before it was dropped: the kept run's shares.
        const auto same = [](const Eigen::MatrixXf& a, const Eigen::MatrixXf& b) {
            return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array() || (a.array().isNaN() && b.array().isNaN())).all();
        };
        for (model::HeadPattern p : model::allHeadPatterns()) EXPECT_TRUE(same(model::headPatternShares(dropped, p), model::headPatternShares(kept, p))) << folder;
        EXPECT_TRUE(model::headPatternShares(dropped, model::HeadPattern::PreviousToken).allFinite()) << folder;
        // With the maps kept the forward takes them too (the Looks at tab only reads them): the shares
        // and query counts of the kept maps themselves, bit for bit.
        model::Trace from_maps = kept;
        for (model::LayerTrace& layer : from_maps.layers) layer.pattern_shares.resize(0, 0);
        from_maps.pattern_queries.clear();
        ASSERT_EQ(kept.pattern_queries.size(), model::allHeadPatterns().size()) << folder;
        for (const model::LayerTrace& layer : kept.layers) {
            EXPECT_EQ(layer.pattern_shares.rows(), Eigen::Index(model::allHeadPatterns().size())) << folder;
            EXPECT_EQ(layer.pattern_shares.cols(), Eigen::Index(layer.attention.heads.size())) << folder;
        }
        for (model::HeadPattern p : model::allHeadPatterns()) {
            EXPECT_TRUE(same(model::headPatternShares(kept, p), model::headPatternShares(from_maps, p))) << folder;
            EXPECT_EQ(model::patternQueries(kept, p), model::patternQueries(from_maps, p)) << folder;
        }
        EXPECT_GT(model::patternQueries(kept, model::HeadPattern::Induction), 0) << folder;
        const model::DirectAttribution whole = model::directAttribution(*m, kept), last = model::directAttribution(*m, dropped);
        EXPECT_EQ(last.heads, whole.heads) << folder;
        EXPECT_EQ(last.mlp, whole.mlp) << folder;
        // A window's preview: layer 1's analysis as its block is done, its maps taken, not copied.
        std::optional<Analysis> preview;
        options.maps_of_layer = 1;
        std::vector<bool> kept_whole;  // each layer's maps as attention_done saw them: only layer 1's whole
        options.attention_done = [&](model::Trace& partial) {
            kept_whole.push_back(partial.layers.back().keptMaps());
            if (partial.layers.size() == 2)
                preview = model::layerAnalysis(partial, 1, model::takeLayerAttention(partial), cache);
        };
        const model::Trace taken = model::runModel(*m, ids, options);
        ASSERT_TRUE(preview.has_value()) << folder;
        std::vector<bool> only_layer_1(kept.layers.size(), false);
        only_layer_1[1] = true;
        EXPECT_EQ(kept_whole, only_layer_1) << folder;
        for (model::HeadPattern p : model::allHeadPatterns()) EXPECT_TRUE(same(model::headPatternShares(taken, p), model::headPatternShares(kept, p))) << folder;
        EXPECT_EQ(preview->results.heads[1].weights, kept.layers[1].attention.heads[1].weights) << folder;
        EXPECT_EQ(preview->results.heads[1].logits.size(), 0) << folder;  // the layer in view keeps its weights only
        EXPECT_EQ(*preview->headLogits(1), kept.layers[1].attention.heads[1].logits) << folder;
        EXPECT_EQ(preview->logitAt(1, 9, 4), kept.layers[1].attention.heads[1].logits(9, 4)) << folder;
        EXPECT_EQ(preview->results.output, kept.layers[1].attention.output) << folder;
        EXPECT_EQ(taken.layers[1].thumbnails, dropped.layers[1].thumbnails) << folder;  // made before the maps were taken
        EXPECT_EQ(taken.layers[1].attention.heads[0].output, kept.layers[1].attention.heads[0].output.bottomRows(1)) << folder;
        EXPECT_FALSE(taken.options.attention_done) << folder;
    }
}

// A layer longer than the pictures' kPooledCells keeps its logits pooled as they are computed, for the
// window's pictures (issue 35 item 4: pooling them computed every head's logits again, 0.36 s of a 2,048-
// token layer): in the forward's layer in view and in a layer computed again, they are what pooling
// the kept run's logits gives, the largest magnitude of each block with its sign (Pool::Extreme).
TEST_F(DroppedMaps, ALongLayersLogitsArePooledAsTheyGo) {
    const model::ModelPtr m = io::loadCheckpoint(copyOf("llama3_scaled", [](nlohmann::json& c) {
                                                     c["max_position_embeddings"] = 700;
                                                     c["num_hidden_layers"] = 2;
                                                 }).string());
    std::vector<int> ids(700);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = int(i * 7 % 13);
    model::ForwardOptions options;
    const model::Trace kept = model::runModel(*m, ids, options);
    options.keep_maps = false;
    options.maps_of_layer = 1;
    std::optional<Results> in_view;  // the forward's layer in view, as the window takes it
    options.attention_done = [&](model::Trace& partial) {
        if (partial.layers.size() == 2) in_view = model::takeLayerAttention(partial);
    };
    const model::Trace dropped = model::runModel(*m, ids, options);
    ASSERT_TRUE(in_view.has_value());
    const AttentionOptions layer_options = model::layerAttentionOptions(*m, kept.options.attention, 1, int(ids.size()));
    const PooledMaps want = poolMaps(kept.layers[1].attention, layer_options);
    for (const Results& got : {*in_view, model::layerAttention(*m, dropped, 1)}) {
        const PooledMaps pooled = poolMaps(got, layer_options);
        ASSERT_EQ(pooled.logits.size(), want.logits.size());
        for (std::size_t h = 0; h < want.logits.size(); ++h) {
            EXPECT_EQ(got.heads[h].logits.size(), 0) << "head " << h;
            EXPECT_EQ(got.heads[h].pooled_logits.rows(), kPooledCells) << "head " << h;
            ASSERT_EQ(pooled.logits[h].rows(), kPooledCells);
            const Eigen::ArrayXXf a = pooled.logits[h].array(), b = want.logits[h].array();
            EXPECT_TRUE((a == b || (a.isNaN() && b.isNaN())).all()) << "head " << h;
            EXPECT_TRUE((b < 0).any()) << "head " << h;  // a negative logit of largest magnitude is a block's
        }
    }
}
