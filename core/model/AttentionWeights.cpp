#include "model/AttentionWeights.h"

#include <stdexcept>

namespace headscope::model {

long long AttentionWeights::parameterCount() const {
    return W_QKV.size() + W_Q.size() + W_K.size() + W_V.size() + W_O.size() + b_Q.size() + b_K.size() + b_V.size() +
           b_O.size() + q_norm.size() + k_norm.size();
}

bool AttentionWeights::inPlace() const {
    if (!W_O.inPlace()) return false;
    return packing == QkvPacking::Separate ? W_Q.inPlace() && W_K.inPlace() && W_V.inPlace() : W_QKV.inPlace();
}

void AttentionWeights::project(const Eigen::Ref<const Eigen::MatrixXf>& x, Results& r, bool parallel) const {
    const Eigen::Index q_width = Eigen::Index(heads) * d_k, k_width = Eigen::Index(kv_heads) * d_k,
                       v_width = Eigen::Index(kv_heads) * d_v;
    if (packing == QkvPacking::Separate) {
        W_Q.apply(x, b_Q, r.Q, parallel);  // (n, d) -> Q (n, h*d_k)
        W_K.apply(x, b_K, r.K, parallel);  // (n, d) -> K (n, kv*d_k)
        W_V.apply(x, b_V, r.V, parallel);  // (n, d) -> V (n, kv*d_v)
        return;
    }
    Eigen::MatrixXf fused;
    W_QKV.apply(x, Eigen::RowVectorXf(), fused, parallel);  // (n, d) -> (n, h*d_k + kv*d_k + kv*d_v)
    if (packing == QkvPacking::Fused) {  // [Q | K | V]
        r.Q = fused.leftCols(q_width);
        r.K = fused.middleCols(q_width, k_width);
        r.V = fused.rightCols(v_width);
    } else {  // per head [q_i | k_i | v_i] (h, 3, d_k); kv = h, d_v = d_k
        r.Q.resize(x.rows(), q_width);
        r.K.resize(x.rows(), k_width);
        r.V.resize(x.rows(), v_width);
        for (int i = 0; i < heads; ++i) {
            const Eigen::Index from = Eigen::Index(3) * i * d_k, to = Eigen::Index(i) * d_k;
            r.Q.middleCols(to, d_k) = fused.middleCols(from, d_k);
            r.K.middleCols(to, d_k) = fused.middleCols(from + d_k, d_k);
            r.V.middleCols(to, d_k) = fused.middleCols(from + 2 * d_k, d_k);
        }
    }
    if (hasBias()) {
        r.Q.rowwise() += b_Q;
        r.K.rowwise() += b_K;
        r.V.rowwise() += b_V;
    }
}

Weights AttentionWeights::toWeights() const {
    Weights w;
    w.heads = heads;
    w.kv_heads = kv_heads;
    w.d_k = d_k;
    w.d_v = d_v;
    const Eigen::Index q_width = Eigen::Index(heads) * d_k, k_width = Eigen::Index(kv_heads) * d_k,
                       v_width = Eigen::Index(kv_heads) * d_v;
    if (packing == QkvPacking::Separate) {
        w.W_Q = W_Q.transposedRows(0, W_Q.rows());  // (h*d_k, d) -> (d, h*d_k)
        w.W_K = W_K.transposedRows(0, W_K.rows());  // (kv*d_k, d) -> (d, kv*d_k)
        w.W_V = W_V.transposedRows(0, W_V.rows());  // (kv*d_v, d) -> (d, kv*d_v)
    } else if (packing == QkvPacking::Fused) {  // row blocks [Q; K; V], one converted at a time
        w.W_Q = W_QKV.transposedRows(0, q_width);
        w.W_K = W_QKV.transposedRows(q_width, k_width);
        w.W_V = W_QKV.transposedRows(q_width + k_width, v_width);
    } else {  // rows (h, 3, d_k): head i's q, k, v rows -> its columns of W_Q, W_K, W_V
        const Eigen::Index d = W_QKV.cols();
        w.W_Q.resize(d, q_width);
        w.W_K.resize(d, k_width);
        w.W_V.resize(d, v_width);
        for (int i = 0; i < heads; ++i) {
            const Eigen::MatrixXf qkv = W_QKV.transposedRows(Eigen::Index(3) * i * d_k, 3 * Eigen::Index(d_k));  // (d, 3 d_k)
            const Eigen::Index to = Eigen::Index(i) * d_k;
            w.W_Q.middleCols(to, d_k) = qkv.leftCols(d_k);
            w.W_K.middleCols(to, d_k) = qkv.middleCols(d_k, d_k);
            w.W_V.middleCols(to, d_k) = qkv.rightCols(d_k);
        }
    }
    w.W_O = W_O.transposedRows(0, W_O.rows());  // (d, h*d_v) -> (h*d_v, d)
    w.b_Q = b_Q;
    w.b_K = b_K;
    w.b_V = b_V;
    w.b_O = b_O;
    return w;
}

AttentionWeights AttentionWeights::owned(const Weights& w) {
    AttentionWeights a;
    a.heads = w.heads;
    a.kv_heads = w.kv_heads;
    a.d_k = w.d_k;
    a.d_v = w.d_v;
    a.W_Q = LinearWeight(Eigen::MatrixXf(w.W_Q.transpose()));  // (h*d_k, d)
    a.W_K = LinearWeight(Eigen::MatrixXf(w.W_K.transpose()));  // (kv*d_k, d)
    a.W_V = LinearWeight(Eigen::MatrixXf(w.W_V.transpose()));  // (kv*d_v, d)
    a.W_O = LinearWeight(Eigen::MatrixXf(w.W_O.transpose()));  // (d, h*d_v)
    a.b_Q = w.b_Q;
    a.b_K = w.b_K;
    a.b_V = w.b_V;
    a.b_O = w.b_O;
    return a;
}

Results attend(const AttentionOptions& options, const AttentionWeights& w, const Eigen::Ref<const Eigen::MatrixXf>& x,
               const HeadDone& head_done) {
    Results r;
    // Below about a million multiply-adds, threads cost more than they save (as core's forward()).
    const bool parallel = 2.0 * double(x.rows()) * w.dModel() * (double(w.heads) * w.d_k + double(w.kv_heads) * w.d_v) > 1e6;
    w.project(x, r, parallel);                                          // Q, K, V (n, *)
    if (w.hasQkNorm()) {
        // RMSNorm in float: per head over d_k (one weight for all heads), or over the whole width.
        const auto norm = [&](Eigen::MatrixXf& m, const Eigen::RowVectorXf& weight) {
            const Eigen::Index width = w.qk_norm_per_head ? w.d_k : m.cols();
            for (Eigen::Index from = 0; from < m.cols(); from += width) {
                auto block = m.middleCols(from, width);  // (n, width)
                const Eigen::VectorXf inverse = (block.array().square().rowwise().mean() + float(w.qk_norm_epsilon)).rsqrt();
                block.array().colwise() *= inverse.array();
                block.array().rowwise() *= weight.array();
            }
        };
        r.Q_projected = r.Q;  // kept for the Score view: q and k before and after their norm
        r.K_projected = r.K;
        norm(r.Q, w.q_norm);  // (n, h*d_k)
        norm(r.K, w.k_norm);  // (n, kv*d_k)
    }
    attendProjected(options, w.heads, w.kv_heads, w.d_k, w.d_v, r, parallel, head_done);  // concat (n, h*d_v)
    w.W_O.apply(r.concat, w.b_O, r.output, parallel);                    // (n, h*d_v) -> (n, d)
    return r;
}

std::shared_ptr<const Weights> LayerWeightsCache::get(int layer, const AttentionWeights& w) const {
    {
        std::lock_guard lock(mutex_);
        for (auto it = layers_.begin(); it != layers_.end(); ++it)
            if (it->first == layer) {
                layers_.splice(layers_.begin(), layers_, it);  // most recent first
                return layers_.front().second;
            }
    }
    auto made = std::make_shared<const Weights>(w.toWeights());  // built outside the lock
    std::lock_guard lock(mutex_);
    ++built_;
    for (const auto& held : layers_)
        if (held.first == layer) return held.second;  // another thread built it meanwhile
    layers_.emplace_front(layer, made);
    while (static_cast<int>(layers_.size()) > kLayers) layers_.pop_back();
    return made;
}

void LayerWeightsCache::clear() {
    std::lock_guard lock(mutex_);
    layers_.clear();
}

long long LayerWeightsCache::built() const {
    std::lock_guard lock(mutex_);
    return built_;
}

}  // namespace headscope::model
