#pragma once
// The exact forward pass over a loaded model of any family (model/Model.h), keeping what
// HeadScope shows:
//   X_0 = wte[ids] (+ wpe[0..n) when the model has position embeddings)   (n, d)
//   block l: A_l = N_1(X_l) (the attention input), R_l = forward(attention_l, A_l) with the
//            model's rotary frequencies (positions 0..n-1)
//            sequential: X_l' = X_l + R_l.output,  X_{l+1} = X_l' + MLP(N_2(X_l'))
//            parallel:   X_{l+1} = X_l + R_l.output + MLP(N_2(X_l))
//   logits = N_f(X_L) * outputEmbeddingT()                                  (n, vocab)
// The attention of every block is core's forward() (Engine.h) on the block's Weights, so
// every head's Q, K (rotated for rotary models), V, logits and weights are the same Results
// the single-layer views read.

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "Analysis.h"
#include "Engine.h"
#include "model/Ablation.h"
#include "model/Model.h"

namespace headscope::model {

struct Trace;

struct ForwardOptions {
    // Causal mask on (GPT-2 was trained with it); temperature and padded keys pass through.
    // `scale` is overridden by the model's scale_attn_weights, `rotary` by the model's.
    AttentionOptions attention = [] {
        AttentionOptions causal;
        causal.mask = MaskKind::Causal;
        return causal;
    }();
    bool all_logits = false;  // logits for every position, not only the last one
    Ablation ablation;        // heads knocked out (model/Ablation.h); checked against the model
    // Fewer blocks than the model has: only the first `layers`, the last of them up to its attention
    // (no MLP, no logits): the first picture of a layer without the rest. -1: every block, the logits.
    int layers = -1;
    // false: each block's per-head logits and weights (n x n each), Q, K, V, the concatenated heads and
    // the attention input are dropped once the block is done, and its outputs (each head's and the
    // sum) and its mask kept at the last position only, so a long input holds one layer's maps at a
    // time; the residual stays (layerAttention recomputes the rest exactly, attribution reads the
    // last position).
    bool keep_maps = true;
    // With keep_maps false, the one layer whose maps are whole when attention_done sees it (a window's
    // layer in view), as every head's weights: its logits are pooled for the pictures and given back
    // as they are computed (HeadResult::pooled_logits; headLogits gives them again). Every other
    // layer's maps are dropped head by head, so that a long input's forward never holds a whole
    // layer's maps (1 GiB at 2,048 tokens of a 1B model).
    int maps_of_layer = -1;
    // Called on the forward's thread after each block's attention, before its MLP, with the trace so
    // far (blocks 0..l, the last one's attention done and its maps still there when it is
    // maps_of_layer or keep_maps is on): a window draws the layer in view before the rest of the
    // forward is done. With keep_maps false it may take the last block's maps (takeLayerAttention);
    // they are dropped after it anyway. Not kept in Trace::options.
    std::function<void(Trace& partial)> attention_done;
    // Encoders: each position's token type (BERT's sentence A 0, B 1); empty: every token type 0.
    std::vector<int> token_types;
    // A sentence pair: the first position of the second sentence (its keys are "the other sentence"
    // for the first's queries, whatever the token types say: RoBERTa's are all 0); -1: one text.
    int second_sentence = -1;
};

// A head's map drawn small (the Model tab's panels) is at most this many cells a side.
constexpr int kThumbnailCells = 64;

struct LayerTrace {
    Eigen::MatrixXf residual;         // X_l, the residual stream entering the block (n, d)
    Eigen::MatrixXf attention_input;  // N_1(X_l) (n, d); empty with the maps dropped: attentionInput()
    Results attention;                // Q, K, V (n, d), heads' logits/weights (n, n), output (n, d);
                                      // maps dropped: heads' outputs (1, d_v) and output (1, d), the last position
    // Each head's weights downsampled to at most kThumbnailCells a side, each cell its block's
    // largest weight (Downsample.h): with the maps dropped (keep_maps false), or kept but of more
    // than kThumbnailCells tokens. Empty for kept maps of fewer tokens (each is its own thumbnail).
    std::vector<Eigen::MatrixXf> thumbnails;
    // (patterns, heads): each head's share on each pattern's keys (HeadPatterns.h, allHeadPatterns()
    // order), taken by the forward from its map, kept or dropped.
    Eigen::MatrixXf pattern_shares;
    bool keptMaps() const { return attention.heads.empty() || attention.heads.front().weights.size() > 0; }
};

struct Trace {
    std::vector<int> ids;
    std::vector<std::string> tokens;  // display text of each id (Tokenizer::displayText)
    ForwardOptions options;           // as used (scale and rotary set from the model; ablation: the heads that were off)
    std::vector<LayerTrace> layers;
    Eigen::MatrixXf final_residual;   // X_L, before the final norm (n, d)
    Eigen::MatrixXf logits;           // (n, vocab) with all_logits, else (1, vocab): the last position
    std::vector<int> pattern_queries;  // (patterns): how many queries have a key of each pattern (allHeadPatterns() order)
    int n() const { return static_cast<int>(ids.size()); }
};

// ids must be non-empty, at most n_positions long, each a row of wte, and the ablated heads
// must exist; std::invalid_argument (one sentence) otherwise. The ablated heads' outputs are
// replaced after each block's attention (ablateLayer), before the residual adds them.
Trace runModel(const Model& model, const std::vector<int>& ids, const ForwardOptions& options = {});

// LayerNorm over each row: (x - mean) / sqrt(var + eps) * weight + bias. (n, d) -> (n, d)
Eigen::MatrixXf layerNorm(const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& ln, double epsilon);
// RMSNorm over each row: x / sqrt(mean(x^2) + eps) * weight. (n, d) -> (n, d)
Eigen::MatrixXf rmsNorm(const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& norm, double epsilon);
// The model's norm (config.norm) with its epsilon; x itself where the norm is absent (empty weight).
Eigen::MatrixXf normalize(const ModelConfig& config, const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& norm);

// N_1(X_l), layer `layer`'s attention input: the trace's, or recomputed from its residual (bit for bit).
Eigen::MatrixXf attentionInput(const Model& model, const Trace& trace, int layer);

// Layer `layer`'s attention exactly as the forward computed it (the ablated heads' outputs replaced),
// maps included: the trace's own when it kept them, else recomputed from its attention input (one
// layer's maps of a long input: each head's weights, and its logits pooled, as the forward's layer in
// view keeps them). std::invalid_argument for a layer the trace does not hold.
Results layerAttention(const Model& model, const Trace& trace, int layer);

// A trace's last block's attention, its maps moved out (the rest copied): what attention_done takes of a
// trace that drops them, so that the layer in view is not copied (1 GiB at 2,048 tokens of a 1B model).
Results takeLayerAttention(Trace& trace);

// Layer `layer`'s attention options on n tokens: `base` (mask, padding, temperature) with the
// layer's sliding window, score scale and softcap, and its rotation (the model's frequencies;
// LongRoPE's long ones past the original context; Gemma 3's local ones on a sliding layer;
// none on a NoPE layer).
AttentionOptions layerAttentionOptions(const Model& model, const AttentionOptions& base, int layer, int n);

struct NextToken {
    int id = 0;
    std::string token;   // display text
    double probability = 0;
};

// The k most probable next tokens after the last position (softmax of its logits, double).
std::vector<NextToken> topNextTokens(const Model& model, const Trace& trace, int k);
// The k most probable tokens at `position` (softmax of that row of trace.logits, double): an
// encoder's guesses for a masked token. std::invalid_argument when the trace has no such row.
std::vector<NextToken> topTokensAt(const Model& model, const Trace& trace, int position, int k);
// An encoder's masked positions: where the text holds its tokenizer's mask token ("[MASK]" for
// BERT, DistilBERT and ModernBERT, "<mask>" for RoBERTa). Empty for a decoder.
std::vector<int> maskedPositions(const Model& model, const Trace& trace);

// Greedy decoding: appends the arg-max next token `steps` times, or until the input would
// be longer than n_positions (no sliding window); returns only the new ids.
std::vector<int> greedyContinuation(const Model& model, std::vector<int> ids, int steps,
                                    const ForwardOptions& options = {});

// One layer of a model and trace as an Analysis, so every view and export of a single
// layer shows it: config (d_model, heads, d_k, d_v, mask, temperature, text), weights
// (the block's attention), input tokens and X = LN_1 output, results, W_QK/W_OV spectra,
// logits spectra and cost, exactly as analyze() fills them. No equivalence (addEquivalence).
Analysis layerAnalysis(const Model& model, const Trace& trace, int layer, double rank_rtol = 0);

// Estimated bytes a trace of n tokens keeps: every layer's maps (each head's logits and weights)
// and projections; with keep_maps false (a long input) each layer's residual, mask and thumbnails,
// and the one layer whose maps are shown (each head's weights, its projections).
double traceBytes(const ModelConfig& config, int n, bool keep_maps = true);

}  // namespace headscope::model
