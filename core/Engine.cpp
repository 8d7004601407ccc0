#include "Engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "Logits.h"
#include "Parallel.h"
#include "RotaryCircuits.h"

namespace headscope {

namespace {
// Above this the merged rotary check (a (d, d) product per distance, d^2 per cell) is skipped.
constexpr double kMaxMergedRotaryMultiplyAdds = 2e9;

// max(worst, value) that lets NaN through: a NaN difference must not read as agreement.
double worse(double worst, double value) { return std::isnan(worst) || value <= worst ? worst : value; }

// Largest |a - b| over the cells a query may attend to (NaN if any difference is NaN).
double maxAllowedDiff(const Eigen::MatrixXf& a, const Eigen::MatrixXf& b, const MaskMatrix& allowed) {
    double worst = 0;
    for (Eigen::Index c = 0; c < a.cols(); ++c)
        for (Eigen::Index r = 0; r < a.rows(); ++r)
            if (allowed(r, c)) worst = worse(worst, double(std::abs(a(r, c) - b(r, c))));
    return worst;
}

// Gemma 2's softcap on scaled logits, as attendProjected applies it; unchanged without one.
Eigen::MatrixXf softcapped(Eigen::MatrixXf logits, const AttentionOptions& options) {
    if (options.softcap > 0) softcapInPlace(logits, static_cast<float>(options.softcap));
    return logits;
}
}  // namespace

AttentionOptions AttentionOptions::from(const Config& config) {
    AttentionOptions options;
    options.mask = config.mask;
    options.padded_keys = config.padded_keys;
    options.scale = config.scale;
    options.temperature = config.temperature;
    return options;
}

void rotateHeads(const Rotary& rotary, const std::vector<int>& positions, int d_k, Eigen::Ref<Eigen::MatrixXf> x) {
    const Eigen::Index m = rotary.inverse_frequencies.size(), n = x.rows();
    if (m == 0) return;
    if (d_k < 1 || 2 * m > d_k || x.cols() % d_k != 0)
        throw std::invalid_argument("rotary positions turn " + std::to_string(2 * m) +
                                    " dimensions of each head, which does not fit heads of size " + std::to_string(d_k));
    if (!positions.empty() && static_cast<Eigen::Index>(positions.size()) != n)
        throw std::invalid_argument("rotary positions were given for " + std::to_string(positions.size()) +
                                    " rows but there are " + std::to_string(n));
    // cos/sin (n, m) of the angles t * theta_p, in float like Hugging Face's rotary embedding.
    Eigen::MatrixXf cosine(n, m), sine(n, m);
    for (Eigen::Index r = 0; r < n; ++r) {
        const float t = static_cast<float>(positions.empty() ? r : positions[r]);
        for (Eigen::Index p = 0; p < m; ++p) {
            const float angle = t * rotary.inverse_frequencies(p);
            cosine(r, p) = std::cos(angle) * rotary.attention_scaling;
            sine(r, p) = std::sin(angle) * rotary.attention_scaling;
        }
    }
    // Each head's halves a = dims [0, m), b = [m, 2m): a' = a cos - b sin, b' = b cos + a sin.
    for (Eigen::Index head = 0; head < x.cols() / d_k; ++head) {
        auto a = x.middleCols(head * d_k, m);
        auto b = x.middleCols(head * d_k + m, m);
        const Eigen::ArrayXXf a0 = a.array();
        a.array() = a0 * cosine.array() - b.array() * sine.array();
        b.array() = b.array() * cosine.array() + a0 * sine.array();
    }
}

float AttentionOptions::logitFactor(int d_k) const {
    const double scale_factor = scale ? 1.0 / std::sqrt(scale_base > 0 ? scale_base : double(d_k)) : 1.0;
    return static_cast<float>(scale_factor / temperature);
}

MaskMatrix makeAllowed(const AttentionOptions& options, int n_q, int n_kv) {
    MaskMatrix allowed = MaskMatrix::Constant(n_q, n_kv, true);  // (n_q, n_kv)
    if (options.mask == MaskKind::Causal)
        for (int q = 0; q < n_q; ++q) {
            for (int k = q + 1; k < n_kv; ++k) allowed(q, k) = false;
            if (options.window > 0)
                for (int k = 0; k <= q - options.window && k < n_kv; ++k) allowed(q, k) = false;
        }
    else if (options.window > 0)  // both directions: the band |q - k| <= window
        for (int q = 0; q < n_q; ++q)
            for (int k = 0; k < n_kv; ++k)
                if (std::abs(q - k) > options.window) allowed(q, k) = false;
    for (int key : options.padded_keys)
        if (key >= 0 && key < n_kv) allowed.col(key).setConstant(false);
    return allowed;
}

namespace {
// Column range of one half (0 or 1) of n columns: (begin, width).
std::pair<Eigen::Index, Eigen::Index> half(Eigen::Index n, int which) {
    const Eigen::Index first = n / 2;
    return which == 0 ? std::pair{Eigen::Index(0), first} : std::pair{first, n - first};
}
}  // namespace

void attendProjected(const AttentionOptions& options, int heads, int kv_heads, int d_k, int d_v, Results& r,
                     bool parallel, const HeadDone& head_done) {
    const int n_q = static_cast<int>(r.Q.rows()), n_kv = static_cast<int>(r.K.rows());
    if (r.Q.cols() != Eigen::Index(heads) * d_k || r.K.cols() != Eigen::Index(kv_heads) * d_k ||
        r.V.cols() != Eigen::Index(kv_heads) * d_v || r.V.rows() != n_kv || kv_heads <= 0 || heads % kv_heads != 0)
        throw std::invalid_argument("the projections' shapes do not fit " + std::to_string(heads) + " heads on " +
                                    std::to_string(kv_heads) + " key/value heads of size " + std::to_string(d_k));
    r.concat.resize(n_q, Eigen::Index(heads) * d_v);  // (n_q, h*d_v)
    r.allowed = makeAllowed(options, n_q, n_kv);
    r.heads.resize(heads);
    // Rotary: q and k turned by their positions after the bias, before the logits.
    rotateHeads(options.rotary, options.rotary.query_positions, d_k, r.Q);
    rotateHeads(options.rotary, options.rotary.key_positions, d_k, r.K);

    const float factor = options.logitFactor(d_k);
    const VisibleRows visible = VisibleRows::of(options);
    const std::vector<QueryBlock> blocks = queryBlocks(options, n_q, n_kv);
    parallelFor(heads, [&](int i) {
        const int g = i / (heads / kv_heads);
        HeadResult& head = r.heads[i];
        head.logits = scoreHead(options, r, i, g, d_k, factor);  // (n_q, n_kv)
        head.weights = softmaxRows(head.logits, visible);
        // weights_i (n_q, n_kv) V_g (n_kv, d_v) -> out_i (n_q, d_v); each block of queries sums the
        // values of the keys in its reach (the others' weights are 0).
        const auto v = r.V.middleCols(g * d_v, d_v);  // (n_kv, d_v)
        head.output.resize(n_q, d_v);
        for (const QueryBlock& b : blocks)
            head.output.middleRows(b.first, b.rows).noalias() =
                head.weights.block(b.first, b.begin, b.rows, b.end - b.begin) * v.middleRows(b.begin, b.end - b.begin);
        r.concat.middleCols(i * d_v, d_v) = head.output;
        if (head_done) head_done(i, head);
    }, parallel);
}

Results forward(const AttentionOptions& options, const Weights& w, const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                const Eigen::Ref<const Eigen::MatrixXf>& x_kv) {
    const int h = w.heads, d_k = w.d_k, d_v = w.d_v;
    const int n_q = static_cast<int>(x_q.rows()), n_kv = static_cast<int>(x_kv.rows());
    Results r;
    r.Q.resize(n_q, w.W_Q.cols());   // (n_q, h*d_k)
    r.K.resize(n_kv, w.W_K.cols());  // (n_kv, kv*d_k)
    r.V.resize(n_kv, w.W_V.cols());  // (n_kv, kv*d_v)
    r.output.resize(n_q, w.dModel());  // (n_q, d_model)
    // Below about a million multiply-adds, threads cost more than they save.
    const bool parallel = double(n_q + n_kv) * w.dModel() * (w.W_Q.cols() + w.W_V.cols()) > 1e6;

    // X W + b in column halves: six independent GEMMs for the cores to share.
    struct Projection {
        const Eigen::Ref<const Eigen::MatrixXf>& x;
        const Eigen::MatrixXf& weight;
        const Eigen::RowVectorXf& bias;
        Eigen::MatrixXf& out;
    };
    const Projection projections[] = {{x_q, w.W_Q, w.b_Q, r.Q}, {x_kv, w.W_K, w.b_K, r.K}, {x_kv, w.W_V, w.b_V, r.V}};
    parallelFor(6, [&](int task) {
        const Projection& p = projections[task / 2];
        const auto [begin, width] = half(p.weight.cols(), task % 2);
        p.out.middleCols(begin, width).noalias() = p.x * p.weight.middleCols(begin, width);
        if (w.hasBias()) p.out.middleCols(begin, width).rowwise() += p.bias.segment(begin, width);
    }, parallel);
    attendProjected(options, h, w.kv_heads, d_k, d_v, r, parallel);

    // concat (n_q, h*d_v) W_O (h*d_v, d_model) + b_O, in column halves
    parallelFor(2, [&](int task) {
        const auto [begin, width] = half(w.W_O.cols(), task);
        r.output.middleCols(begin, width).noalias() = r.concat * w.W_O.middleCols(begin, width);
        if (w.hasBias()) r.output.middleCols(begin, width).rowwise() += w.b_O.segment(begin, width);
    }, parallel);
    return r;
}

Results forward(const Config& config, const Weights& weights, const Input& input) {
    return forward(AttentionOptions::from(config), weights, input.query.X, input.key_value.X);
}

namespace {

// Head i's logits through its own 3 maps: (X_q W_i^Q + b)(X_kv W_i^K + b)^T * factor. (n_q, n_kv)
Eigen::MatrixXf perHeadLogitsOf(const AttentionOptions& options, const Weights& w,
                                const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                                const Eigen::Ref<const Eigen::MatrixXf>& x_kv, int i) {
    const int d_k = w.d_k, g = w.kvHeadOf(i);
    Eigen::MatrixXf q = x_q * w.queryHead(i);  // (n_q, d_k): one of the 3h maps
    Eigen::MatrixXf k = x_kv * w.keyHead(i);   // (n_kv, d_k)
    if (w.hasBias()) {
        q.rowwise() += w.b_Q.segment(i * d_k, d_k);
        k.rowwise() += w.b_K.segment(g * d_k, d_k);
    }
    rotateHeads(options.rotary, options.rotary.query_positions, d_k, q);
    rotateHeads(options.rotary, options.rotary.key_positions, d_k, k);
    Eigen::MatrixXf logits = q * k.transpose();  // (n_q, n_kv)
    return softcapped(logits * options.logitFactor(d_k), options);
}

// Head i's logits through the merged bilinear form X_q W_QK,i X_kv^T plus the bias terms.
Eigen::MatrixXf mergedLogitsOf(const AttentionOptions& options, const Weights& w,
                               const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                               const Eigen::Ref<const Eigen::MatrixXf>& x_kv, int i) {
    const int d_k = w.d_k;
    const Eigen::MatrixXf w_qk = mergedQK(w, i);              // (d_model, d_model)
    const Eigen::MatrixXf xw = x_q * w_qk;                    // (n_q, d_model)
    Eigen::MatrixXf logits = xw * x_kv.transpose();           // (n_q, n_kv)
    if (w.hasBias()) {
        // (x_q W_q + b_q)(x_kv W_k + b_k)^T = x_q W_QK x_kv^T + x_q W_q b_k^T + b_q W_k^T x_kv^T + b_q b_k^T
        const int g = w.kvHeadOf(i);
        const Eigen::RowVectorXf b_q = w.b_Q.segment(i * d_k, d_k), b_k = w.b_K.segment(g * d_k, d_k);
        const Eigen::VectorXf u = w.queryHead(i) * b_k.transpose();  // (d_model)
        const Eigen::VectorXf v = w.keyHead(i) * b_q.transpose();    // (d_model)
        logits.colwise() += x_q * u;
        logits.rowwise() += (x_kv * v).transpose();
        logits.array() += b_q.dot(b_k);
    }
    return softcapped(logits * options.logitFactor(d_k), options);
}

// Head i's logits through the merged form with the rotation between the two positions:
//   x_r W_QK,i(Delta) x_c^T + x_r W_i^Q M b_k^T + b_q M (W_g^K)^T x_c^T + b_q M b_k^T,
// W_QK,i(Delta) = W_i^Q M(Delta) (W_g^K)^T (d_model, d_model) formed once per distance
// Delta = key position - query position (RotaryCircuits.h). Only allowed cells; 0 elsewhere.
Eigen::MatrixXf mergedRotaryLogitsOf(const AttentionOptions& options, const Weights& w,
                                     const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                                     const Eigen::Ref<const Eigen::MatrixXf>& x_kv, int i, const MaskMatrix& allowed) {
    const int d_k = w.d_k, g = w.kvHeadOf(i);
    const Rotary& rotary = options.rotary;
    const auto position = [](const std::vector<int>& given, Eigen::Index r) { return given.empty() ? int(r) : given[r]; };
    std::map<int, std::vector<std::pair<Eigen::Index, Eigen::Index>>> cells;  // Delta -> (query, key)
    for (Eigen::Index r = 0; r < x_q.rows(); ++r)
        for (Eigen::Index c = 0; c < x_kv.rows(); ++c)
            if (allowed(r, c))
                cells[position(rotary.key_positions, c) - position(rotary.query_positions, r)].emplace_back(r, c);
    Eigen::MatrixXf logits = Eigen::MatrixXf::Zero(x_q.rows(), x_kv.rows());  // (n_q, n_kv)
    const Eigen::MatrixXf w_q = w.queryHead(i), w_k = w.keyHead(i);           // (d_model, d_k)
    for (const auto& [delta, list] : cells) {
        const Eigen::MatrixXf M = relativeRotation(rotary, d_k, delta).cast<float>();  // (d_k, d_k)
        const Eigen::MatrixXf w_qm = w_q * M;                                          // (d_model, d_k)
        const Eigen::MatrixXf w_qk = w_qm * w_k.transpose();                            // (d_model, d_model)
        Eigen::VectorXf u, v;
        float bias_bias = 0;
        if (w.hasBias()) {
            const Eigen::RowVectorXf b_q = w.b_Q.segment(i * d_k, d_k), b_k = w.b_K.segment(g * d_k, d_k);
            u = w_qm * b_k.transpose();                // (d_model)
            v = w_k * (b_q * M).transpose();           // (d_model)
            bias_bias = (b_q * M).dot(b_k);
        }
        for (const auto& [r, c] : list) {
            float score = (x_q.row(r) * w_qk).dot(x_kv.row(c));
            if (w.hasBias()) score += x_q.row(r).dot(u.transpose()) + x_kv.row(c).dot(v.transpose()) + bias_bias;
            logits(r, c) = score;
        }
    }
    return softcapped(logits * options.logitFactor(d_k), options);
}

// Multiply-adds of mergedRotaryLogitsOf over every head: one (d, d) product per distance, d^2 a cell.
double mergedRotaryCost(const Weights& w, Eigen::Index n_q, Eigen::Index n_kv) {
    const double d = w.dModel();
    return double(w.heads) * ((double(n_q + n_kv)) * d * d * w.d_k + double(n_q) * double(n_kv) * d * d);
}

}  // namespace

Eigen::MatrixXf mergedQK(const Weights& w, int head) {
    return w.queryHead(head) * w.keyHead(head).transpose();  // (d_model, d_k)(d_k, d_model)
}

Equivalence checkEquivalence(const AttentionOptions& options, const Weights& w,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_q,
                             const Eigen::Ref<const Eigen::MatrixXf>& x_kv, const Results& fused,
                             const std::atomic<bool>* stop) {
    // One head at a time, reduced at once: memory O(threads n_q n_kv), not O(h n_q n_kv).
    std::vector<Equivalence> per_head(w.heads);
    const auto stopped = [stop] { return stop && stop->load(std::memory_order_relaxed); };
    const bool merged_rotary =
        options.rotary.enabled() && mergedRotaryCost(w, x_q.rows(), x_kv.rows()) <= kMaxMergedRotaryMultiplyAdds;
    parallelFor(
        w.heads,
        [&](int i) {
            if (stopped()) return;  // a head's merged W_QK,i costs d^2 d_k: not for a result no one wants
            // A long input's layer keeps its weights only: its logits computed again, the same numbers.
            const Eigen::MatrixXf recomputed =
                fused.heads[i].logits.size() ? Eigen::MatrixXf() : headLogits(options, fused, i);
            const Eigen::MatrixXf& f = fused.heads[i].logits.size() ? fused.heads[i].logits : recomputed;
            const Eigen::MatrixXf per = perHeadLogitsOf(options, w, x_q, x_kv, i);
            per_head[i].fused_vs_per_head = maxAllowedDiff(f, per, fused.allowed);
            if (!options.rotary.enabled())
                per_head[i].factored_vs_merged =
                    maxAllowedDiff(f, mergedLogitsOf(options, w, x_q, x_kv, i), fused.allowed);
            else if (merged_rotary)
                per_head[i].factored_vs_merged =
                    maxAllowedDiff(f, mergedRotaryLogitsOf(options, w, x_q, x_kv, i, fused.allowed), fused.allowed);
            per_head[i].max_abs_logit = per.size() ? double(per.cwiseAbs().maxCoeff()) : 0.0;
        },
        double(x_q.cols()) * x_q.cols() * w.d_k * w.heads > 1e6);
    if (stopped()) throw EquivalenceStopped();
    Equivalence e;
    for (const Equivalence& h : per_head) {
        e.fused_vs_per_head = worse(e.fused_vs_per_head, h.fused_vs_per_head);
        e.factored_vs_merged = worse(e.factored_vs_merged, h.factored_vs_merged);
        e.max_abs_logit = worse(e.max_abs_logit, h.max_abs_logit);
    }
    e.compared_cells = static_cast<long long>(fused.allowed.count()) * w.heads;
    e.merged_compared = !options.rotary.enabled() || merged_rotary;
    return e;
}

}  // namespace headscope
