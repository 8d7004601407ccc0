#include "model/Forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "Downsample.h"
#include "Parallel.h"
#include "model/HeadPatterns.h"
#include "text/Utf8.h"

namespace headscope::model {

namespace {

// A long input's layer in view (ForwardOptions::keep_maps off): each head's weights kept, its logits
// given back as soon as they are computed (headLogits gives them again), pooled first for the pictures
// when they are larger than those (below that, computing them again costs little). Masked logits are
// -inf, which pooling leaves out as it leaves out masked cells: the same pooled map as poolMaps' with
// the mask.
void keepWeightsOnly(int, HeadResult& head) {
    if (std::max(head.logits.rows(), head.logits.cols()) > kPooledCells)
        head.pooled_logits = downsample(head.logits, kPooledCells, kPooledCells, Pool::Extreme);  // (512, 512)
    head.logits = Eigen::MatrixXf();
}

void activateColumns(Eigen::Ref<Eigen::MatrixXf> m, Activation activation) {
    auto x = m.array();
    switch (activation) {
        case Activation::GeluTanh: {
            const float c = std::sqrt(2.0f / float(M_PI));
            m = (0.5f * x * (1.0f + (c * (x + 0.044715f * x.cube())).tanh())).matrix();
            break;
        }
        case Activation::GeluErf:
            m = m.unaryExpr([](float v) { return 0.5f * v * (1.0f + std::erf(v * float(M_SQRT1_2))); });
            break;
        case Activation::Relu:
            m = m.cwiseMax(0.0f);
            break;
        case Activation::Silu:
            m = (x / (1.0f + (-x).exp())).matrix();
            break;
    }
}

// The activation in place, its columns in two halves for the cores to share. (n, width)
void activate(Eigen::MatrixXf& m, Activation activation, bool parallel) {
    const Eigen::Index first = m.cols() / 2;
    parallelFor(2, [&](int task) {
        activateColumns(task == 0 ? m.leftCols(first) : m.rightCols(m.cols() - first), activation);
    }, parallel);
}

}  // namespace

Eigen::MatrixXf layerNorm(const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& ln, double epsilon) {
    // x (n, d): per row mean and biased variance (two passes, as torch.nn.LayerNorm), then
    // (x - mean) * rsqrt(var + eps) * weight + bias.
    const Eigen::VectorXf mean = x.rowwise().mean();                       // (n)
    Eigen::MatrixXf y = x.colwise() - mean;                                 // (n, d)
    const Eigen::VectorXf variance = y.array().square().rowwise().mean();   // (n)
    const Eigen::VectorXf inverse = (variance.array() + float(epsilon)).rsqrt();
    y = y.array().colwise() * inverse.array();
    y.array().rowwise() *= ln.weight.array();
    y.rowwise() += ln.bias;
    return y;
}

Eigen::MatrixXf rmsNorm(const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& norm, double epsilon) {
    // x (n, d): per row mean of squares, x * rsqrt(ms + eps) * weight, in float (as HF's LlamaRMSNorm).
    const Eigen::VectorXf inverse = (x.array().square().rowwise().mean() + float(epsilon)).rsqrt();  // (n)
    Eigen::MatrixXf y = x.array().colwise() * inverse.array();
    y.array().rowwise() *= norm.weight.array();
    return y;
}

Eigen::MatrixXf normalize(const ModelConfig& c, const Eigen::Ref<const Eigen::MatrixXf>& x, const LayerNorm& norm) {
    if (norm.weight.size() == 0) return x;  // no norm here (OLMo 2's input)
    return c.norm == NormKind::RmsNorm ? rmsNorm(x, norm, c.layer_norm_epsilon) : layerNorm(x, norm, c.layer_norm_epsilon);
}

AttentionOptions layerAttentionOptions(const Model& model, const AttentionOptions& base, int layer, int n) {
    const ModelConfig& c = model.config;
    AttentionOptions options = base;
    options.window = c.windowOf(layer);  // 0 on a full-attention layer
    options.scale_base = c.query_pre_attn_scalar;
    options.softcap = c.attn_logit_softcap;
    Rotary& rotary = options.rotary;
    rotary.inverse_frequencies = model.inverse_frequencies;
    rotary.attention_scaling = c.rope_attention_scaling;
    // LongRoPE: the long factors for the whole input once it is longer than the original context.
    if (model.long_inverse_frequencies.size() && n > c.rope_original_max_positions)
        rotary.inverse_frequencies = model.long_inverse_frequencies;
    if (model.local_inverse_frequencies.size() && options.window > 0) rotary.inverse_frequencies = model.local_inverse_frequencies;
    if (!c.rope_layers.empty() && !c.rope_layers[std::size_t(layer)]) rotary = Rotary{};  // NoPE (SmolLM3)
    return options;
}

double traceBytes(const ModelConfig& c, int n, bool keep_maps) {
    const double nn = double(n) * n;
    // A layer whole: residual, LN_1 output, Q, K, V, concat, output (n, d each), each head's output
    // (n, d_k), the mask (n, n) booleans, and each head's logits and weights (n, n); the pattern
    // shares (patterns, heads) are left out, a few floats a head.
    const double whole = 4.0 * (7.0 * n * std::max(c.n_embd, c.n_head * c.headDim()) + double(n) * c.n_embd) + nn;
    // Past kThumbnailCells tokens each head's thumbnail too (a smaller map is its own).
    const double thumbnails = n > kThumbnailCells ? 4.0 * c.n_head * kThumbnailCells * kThumbnailCells : 0.0;
    if (keep_maps) return c.n_layer * (whole + 8.0 * c.n_head * nn + thumbnails);
    // Maps dropped: each layer's residual, thumbnails and its mask's last row, and the layer in view
    // computed again whole, with each head's weights and its logits pooled, but not its logits.
    const double dropped = 4.0 * (double(n) * c.n_embd + double(c.n_head) * kThumbnailCells * kThumbnailCells) + n;
    const double pooled = n > kPooledCells ? double(kPooledCells) * kPooledCells : 0.0;
    return c.n_layer * dropped + whole + 4.0 * c.n_head * (nn + pooled);
}

Trace runModel(const Model& model, const std::vector<int>& ids, const ForwardOptions& options) {
    const ModelConfig& c = model.config;
    const int n = static_cast<int>(ids.size());
    if (n == 0) throw std::invalid_argument("the input has no tokens");
    if (n > c.n_positions)
        throw std::invalid_argument("the input has " + std::to_string(n) + " tokens but this model reads at most " +
                                    std::to_string(c.n_positions) + " (n_positions)");
    for (int i = 0; i < n; ++i)
        if (ids[i] < 0 || ids[i] >= c.vocab_size)
            throw std::invalid_argument("token id " + std::to_string(ids[i]) + " (position " + std::to_string(i) +
                                        ") is outside this model's vocabulary 0.." + std::to_string(c.vocab_size - 1));

    checkAblation(options.ablation, c.n_layer, c.n_head);
    if (!options.token_types.empty()) {
        if (options.token_types.size() != ids.size())
            throw std::invalid_argument("the input has " + std::to_string(n) + " tokens but " +
                                        std::to_string(options.token_types.size()) + " token types");
        for (int i = 0; i < n; ++i)
            if (options.token_types[i] < 0 || options.token_types[i] >= std::max(1, c.type_vocab_size))
                throw std::invalid_argument("token type " + std::to_string(options.token_types[i]) + " (position " +
                                            std::to_string(i) + ") is not one of this model's " +
                                            (c.type_vocab_size > 0 ? std::to_string(c.type_vocab_size) + " token types"
                                                                   : std::string("token types: it has none")));
    }

    Trace trace;
    trace.ids = ids;
    trace.options = options;
    trace.options.attention_done = nullptr;  // the caller's, for this call only
    trace.options.attention.scale = c.scale_attn_weights;
    if (c.encoder) trace.options.attention.mask = MaskKind::None;  // every query sees every key (but padding)
    trace.options.attention.rotary = Rotary{};
    trace.options.attention.rotary.inverse_frequencies = model.inverse_frequencies;  // each layer's: layerAttentionOptions
    for (int id : ids)
        trace.tokens.push_back(model.tokenizer->hasId(id) ? model.tokenizer->displayText(id) : "<" + std::to_string(id) + ">");
    trace.tokens = text::joinSplitCharacters(trace.tokens);  // "\xC3" "\xA9" -> "é…" "…é"
    const bool parallel = double(n) * c.n_embd * c.n_inner > 1e6;

    // X_0 = wte[ids] (+ wpe[0..n))  (n, d)
    Eigen::MatrixXf x(n, c.n_embd);
    for (int i = 0; i < n; ++i) x.row(i) = model.wte.row(ids[i]);
    if (model.wpe_t.size()) {
        // RoBERTa counts positions from padding_idx + 1 over the tokens that are not padding.
        const int pad = c.padding_position_id;
        for (int i = 0, counted = 0; i < n; ++i) {
            const int position = pad < 0 ? i : ids[i] == pad ? pad : pad + ++counted;
            x.row(i) += model.wpe_t.col(position).transpose();
        }
    }
    if (model.token_type_embeddings.size())  // BERT: sentence A (0) or B (1)
        for (int i = 0; i < n; ++i) x.row(i) += model.token_type_embeddings.row(options.token_types.empty() ? 0 : options.token_types[i]);
    if (c.embedding_scale > 0) x *= static_cast<float>(c.embedding_scale);  // Gemma: sqrt(d_model)
    if (model.embedding_norm.weight.size()) x = normalize(c, x, model.embedding_norm);  // encoders' embedding LayerNorm

    const std::size_t layers = options.layers < 0 ? model.blocks.size() : std::min<std::size_t>(options.layers, model.blocks.size());
    trace.layers.reserve(layers);
    // What each head looks at (HeadPatterns.h), taken from its map as soon as it is computed: a long
    // input keeps these in place of its maps, and no view computes them from kept maps.
    const PatternKeySets pattern_keys(trace);
    trace.pattern_queries = pattern_keys.queries();
    Eigen::MatrixXf hidden, mlp, gate, projected;
    for (std::size_t l = 0; l < layers; ++l) {
        const Block& block = model.blocks[l];
        LayerTrace layer;
        layer.residual = x;
        layer.attention_input = normalize(c, x, block.ln_1);                    // (n, d)
        const AttentionOptions layer_options = layerAttentionOptions(model, trace.options.attention, static_cast<int>(l), n);
        const bool last_asked = options.layers >= 0 && l + 1 == layers && layers < model.blocks.size();
        // A long input: each head's map made small and dropped as soon as it is computed, but the layer asked for.
        const int cells = std::min(n, kThumbnailCells);
        const bool drop_maps = !options.keep_maps && static_cast<int>(l) != options.maps_of_layer && !last_asked;
        if (drop_maps) {
            layer.thumbnails.resize(std::size_t(block.attention.heads));
            layer.pattern_shares.resize(Eigen::Index(allHeadPatterns().size()), block.attention.heads);
        }
        const HeadDone drop = [&layer, &pattern_keys, cells](int i, HeadResult& head) {
            layer.thumbnails[std::size_t(i)] = downsample(head.weights, cells, cells, Pool::Max);  // (cells, cells)
            layer.pattern_shares.col(i) = pattern_keys.shares(head.weights);                     // (patterns)
            head.logits = head.weights = Eigen::MatrixXf();
        };
        // The layer asked for keeps its weights, not its logits (headLogits gives them again).
        layer.attention = attend(layer_options, block.attention, layer.attention_input,
                                 drop_maps           ? drop
                                 : options.keep_maps ? HeadDone{}
                                                     : HeadDone(keepWeightsOnly));  // (n, d)
        ablateLayer(options.ablation, static_cast<int>(trace.layers.size()), block.attention, layer.attention);
        if (!drop_maps) {  // a dropped map's shares and thumbnail were taken in `drop`
            // The thumbnails of a long input's layer in view, and of kept maps larger than a panel's
            // cells (a smaller one is its own): the Model tab only reads them.
            const bool thumbnails = !options.keep_maps || n > kThumbnailCells;
            layer.pattern_shares.resize(Eigen::Index(allHeadPatterns().size()), block.attention.heads);
            if (thumbnails) layer.thumbnails.resize(std::size_t(block.attention.heads));
            parallelFor(block.attention.heads, [&](int i) {  // each head its own column and thumbnail
                const Eigen::MatrixXf& weights = layer.attention.heads[std::size_t(i)].weights;        // (n, n)
                layer.pattern_shares.col(i) = pattern_keys.shares(weights);                            // (patterns)
                if (thumbnails) layer.thumbnails[std::size_t(i)] = downsample(weights, cells, cells, Pool::Max);  // (cells, cells)
            }, double(n) * n * block.attention.heads > 1e6);
        }
        if (last_asked) {  // stop at this layer's attention
            trace.layers.push_back(std::move(layer));
            return trace;
        }
        // A sandwich or post-norm (Gemma, OLMo 2) normalises the attention's output before the residual adds it.
        // With post_norm (BERT) that norm comes after the residual's sum instead.
        const Eigen::MatrixXf attention_out =
            c.post_norm ? layer.attention.output
                        : normalize(c, layer.attention.output, block.attention_out_norm);  // (n, d)
        trace.layers.push_back(std::move(layer));
        // The layer's maps are drawn before its MLP, which they do not depend on.
        if (options.attention_done) options.attention_done(trace);
        if (!options.keep_maps) {  // what later layers and the attribution need, no more
            LayerTrace& done = trace.layers.back();
            Results& r = done.attention;
            for (HeadResult& head : r.heads) {
                head.logits = head.weights = head.pooled_logits = Eigen::MatrixXf();
                head.output = Eigen::MatrixXf(head.output.bottomRows(1));  // (1, d_v)
            }
            r.Q = r.K = r.V = r.Q_projected = r.K_projected = r.concat = Eigen::MatrixXf();
            r.output = Eigen::MatrixXf(r.output.bottomRows(1));  // (1, d)
            r.allowed = MaskMatrix(r.allowed.bottomRows(1));     // (1, n): the last query's keys (layerAttention builds it whole)
            done.attention_input = Eigen::MatrixXf();             // N_1(residual): attentionInput()
        }
        // Parallel residual (NeoX): the MLP reads N_2(X_l), not N_2(X_l + attention).
        if (!c.parallel_residual) x += attention_out;                    // residual (n, d)
        if (c.post_norm) x = normalize(c, x, block.attention_out_norm);  // N_1(X + Attn(X)) (n, d)
        hidden = normalize(c, x, block.ln_2);                            // (n, d)
        block.W_fc.apply(hidden, block.b_fc, mlp, parallel);             // (n, n_inner)
        if (c.mlp == MlpKind::Gated) {
            block.W_gate.apply(hidden, block.b_gate, gate, parallel);  // (n, n_inner)
            activate(gate, c.activation, parallel);
            mlp.array() *= gate.array();  // act(x W_gate) * (x W_up)
        } else {
            activate(mlp, c.activation, parallel);
        }
        block.W_proj.apply(mlp, block.b_proj, projected, parallel);  // (n, d)
        if (c.post_norm)
            x = normalize(c, x + projected, block.mlp_out_norm);  // N_2(a + MLP(a)) (n, d)
        else
            x += normalize(c, projected, block.mlp_out_norm);
        if (c.parallel_residual) x += attention_out;
    }

    trace.final_residual = x;
    // logits (n or 1, vocab) = N_f(X_L) E^T, the vocabulary split between two threads.
    // An encoder's logits are every position's (a masked token can be anywhere), through its masked-LM
    // head: N_h(act(h W_h + b_h)) (n, d).
    Eigen::MatrixXf final_hidden = normalize(c, options.all_logits || c.encoder ? x : Eigen::MatrixXf(x.bottomRows(1)), model.ln_f);
    if (!model.head_transform.empty()) {
        Eigen::MatrixXf transformed;
        model.head_transform.apply(final_hidden, model.head_transform_bias, transformed, parallel);  // (n, d)
        activate(transformed, c.activation, parallel);
        final_hidden = normalize(c, transformed, model.head_norm);
    }
    const LinearWeight& embedding = model.outputEmbedding();  // (vocab, d)
    embedding.apply(final_hidden, model.output_bias, trace.logits, double(final_hidden.rows()) * embedding.size() > 1e6);
    if (c.final_logit_softcap > 0) {  // Gemma 2: cap tanh(logits / cap)
        const float cap = static_cast<float>(c.final_logit_softcap);
        trace.logits = ((trace.logits.array() / cap).tanh() * cap).matrix();
    }
    return trace;
}

namespace {

void checkLayer(const Trace& trace, int layer) {
    if (layer < 0 || layer >= static_cast<int>(trace.layers.size()))
        throw std::invalid_argument("layer " + std::to_string(layer) + " does not exist (the run holds " +
                                    std::to_string(trace.layers.size()) + " layers: 0 to " +
                                    std::to_string(int(trace.layers.size()) - 1) + ")");
}

}  // namespace

Eigen::MatrixXf attentionInput(const Model& model, const Trace& trace, int layer) {
    checkLayer(trace, layer);
    const LayerTrace& kept = trace.layers[std::size_t(layer)];
    if (kept.attention_input.size()) return kept.attention_input;
    return normalize(model.config, kept.residual, model.blocks[std::size_t(layer)].ln_1);  // the forward's step (n, d)
}

Results layerAttention(const Model& model, const Trace& trace, int layer) {
    checkLayer(trace, layer);
    const LayerTrace& kept = trace.layers[std::size_t(layer)];
    if (kept.keptMaps()) return kept.attention;
    // The forward's own steps on the same attention input: the same numbers, bit for bit. Like the
    // forward's layer in view, each head's weights kept, its logits pooled and given back (headLogits).
    const AttentionOptions options = layerAttentionOptions(model, trace.options.attention, layer, trace.n());
    Results r = attend(options, model.blocks[std::size_t(layer)].attention, attentionInput(model, trace, layer),
                       keepWeightsOnly);
    ablateLayer(trace.options.ablation, layer, model.blocks[std::size_t(layer)].attention, r);
    return r;
}

Results takeLayerAttention(Trace& trace) {
    if (trace.layers.empty()) throw std::invalid_argument("the run holds no layer");
    Results& kept = trace.layers.back().attention;
    Results taken;
    taken.Q = kept.Q, taken.K = kept.K, taken.V = kept.V;
    taken.Q_projected = kept.Q_projected, taken.K_projected = kept.K_projected;
    taken.allowed = kept.allowed, taken.concat = kept.concat, taken.output = kept.output;
    for (HeadResult& head : kept.heads)
        taken.heads.push_back(
            {std::move(head.logits), std::move(head.weights), head.output, std::move(head.pooled_logits)});
    return taken;
}

}  // namespace headscope::model
