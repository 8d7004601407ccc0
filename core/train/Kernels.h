#pragma once
// Row-wise LayerNorm and GELU (tanh) with their derivatives, shared by the forward and backward
// passes in Transformer*.cpp. Internal to core/train.

#include <Eigen/Core>
#include <cmath>

#include "train/Transformer.h"

namespace headscope::train::kernels {

constexpr float kLayerNormEps = 1e-5f;  // GPT-2's layer_norm_epsilon
constexpr float kGeluCubic = 0.044715f;
inline float geluScale() { return std::sqrt(2.0f / float(M_PI)); }

// x (N, d) -> cache.out (N, d) = (x - mean) / sqrt(var + eps) * weight + bias, var biased.
inline void layerNormForward(const Eigen::Ref<const Eigen::MatrixXf>& x, const Eigen::Ref<const Eigen::RowVectorXf>& weight,
                             const Eigen::Ref<const Eigen::RowVectorXf>& bias, LayerNormCache& cache) {
    const Eigen::VectorXf mean = x.rowwise().mean();                            // (N)
    cache.normalized = x.colwise() - mean;                                       // (N, d)
    cache.rstd = (cache.normalized.array().square().rowwise().mean() + kLayerNormEps).rsqrt();
    cache.normalized.array().colwise() *= cache.rstd.array();
    cache.out = (cache.normalized.array().rowwise() * weight.array()).rowwise() + bias.array();
}

// dout (N, d) -> dx (N, d) +=, dweight, dbias (1, d) +=:
//   dn = dout * weight, dx = rstd (dn - mean(dn) - n mean(dn n)) per row.
inline void layerNormBackward(const Eigen::Ref<const Eigen::MatrixXf>& dout, const Eigen::Ref<const Eigen::RowVectorXf>& weight,
                              const LayerNormCache& cache, Eigen::MatrixXf& dx, Eigen::Ref<Eigen::RowVectorXf> dweight,
                              Eigen::Ref<Eigen::RowVectorXf> dbias) {
    const auto& n = cache.normalized.array();
    dweight += (dout.array() * n).colwise().sum().matrix();
    dbias += dout.colwise().sum();
    const Eigen::ArrayXXf dn = dout.array().rowwise() * weight.array();                 // (N, d)
    const Eigen::ArrayXf mean_dn = dn.rowwise().mean();                                 // (N)
    const Eigen::ArrayXf mean_dn_n = (dn * n).rowwise().mean();                         // (N)
    dx.array() += ((dn.colwise() - mean_dn) - n.colwise() * mean_dn_n).colwise() * cache.rstd.array();
}

// GPT-2's gelu_new: 0.5 u (1 + tanh(c (u + 0.044715 u^3))), c = sqrt(2 / pi).
inline void geluForward(const Eigen::MatrixXf& u, Eigen::MatrixXf& out) {
    const auto x = u.array();
    out = (0.5f * x * (1.0f + (geluScale() * (x + kGeluCubic * x.cube())).tanh())).matrix();
}

// dout (N, k) *= gelu'(u) in place:
//   0.5 (1 + t) + 0.5 u (1 - t^2) c (1 + 3 * 0.044715 u^2), t = tanh(c (u + 0.044715 u^3)).
inline void geluBackward(const Eigen::MatrixXf& u, Eigen::MatrixXf& dout) {
    const float c = geluScale();
    const auto x = u.array();
    const Eigen::ArrayXXf t = (c * (x + kGeluCubic * x.cube())).tanh();
    dout.array() *= 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t.square()) * c * (1.0f + 3.0f * kGeluCubic * x.square());
}

}  // namespace headscope::train::kernels
