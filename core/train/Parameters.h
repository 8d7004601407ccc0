#pragma once
// Every trainable tensor of the small transformer in one flat float buffer (and its gradient
// and Adam moments in buffers of the same layout), each tensor a column-major view at an
// offset. Names and shapes are GPT-2's (Hugging Face GPT2LMHeadModel without "transformer."),
// in the row-vector convention of Conv1D: activations (n, d) times weights (in, out).
//   wte (vocab, d), wpe (context, d)
//   h.{l}.ln_1.{weight,bias} (d)
//   h.{l}.attn.c_attn.weight (d, 3d) = [W_Q | W_K | W_V], h.{l}.attn.c_attn.bias (3d)
//   h.{l}.attn.c_proj.weight (d, d) = W_O, h.{l}.attn.c_proj.bias (d)
//   with an MLP: h.{l}.ln_2.* (d), h.{l}.mlp.c_fc.weight (d, 4d), .bias (4d),
//                h.{l}.mlp.c_proj.weight (4d, d), .bias (d)
//   ln_f.{weight,bias} (d); untied: lm_head.weight (vocab, d)
// A vector is stored as a (1, len) row so that it broadcasts over rows.

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/Tensor.h"
#include "train/TrainConfig.h"

namespace headscope::train {

struct ParameterInfo {
    std::string name;                  // GPT-2's, e.g. "h.0.attn.c_attn.weight"
    std::vector<std::int64_t> shape;   // as stored by GPT-2: (in, out) or (len)
    Eigen::Index rows = 0, cols = 0;   // of the column-major view; a vector is (1, len)
    Eigen::Index offset = 0;           // into the flat buffer
};

struct LayerOffsets {
    Eigen::Index ln_1_weight = 0, ln_1_bias = 0, c_attn_weight = 0, c_attn_bias = 0, c_proj_weight = 0,
                 c_proj_bias = 0;
    Eigen::Index ln_2_weight = -1, ln_2_bias = -1, c_fc_weight = -1, c_fc_bias = -1, mlp_proj_weight = -1,
                 mlp_proj_bias = -1;  // -1 without an MLP
};

class ParameterLayout {
public:
    explicit ParameterLayout(const TrainConfig& config);

    const std::vector<ParameterInfo>& entries() const { return entries_; }
    Eigen::Index size() const { return size_; }
    // nullptr when the model has no tensor of that name.
    const ParameterInfo* find(const std::string& name) const;

    Eigen::Index wte = 0, wpe = 0, ln_f_weight = 0, ln_f_bias = 0;
    Eigen::Index lm_head = -1;  // -1 when tied to wte
    std::vector<LayerOffsets> layers;

private:
    Eigen::Index add(const std::string& name, std::vector<std::int64_t> shape);

    std::vector<ParameterInfo> entries_;
    Eigen::Index size_ = 0;
};

// GPT-2's initialisation (weights N(0, s), the residual projections N(0, s / sqrt(2 layers)), s = init_std (0.02),
// biases 0, LayerNorm scales 1), deterministic for the seed on every machine.
Eigen::VectorXf initialParameters(const TrainConfig& config, const ParameterLayout& layout);

// Named tensors in GPT-2's shapes <-> the flat buffer of this layout. Reading: every tensor of
// the layout must be present with its shape (std::invalid_argument naming it); others are ignored.
Eigen::VectorXf parametersFromTensors(const ParameterLayout& layout, const std::map<std::string, io::Tensor>& tensors);
std::map<std::string, io::Tensor> tensorsFromParameters(const ParameterLayout& layout,
                                                        const Eigen::Ref<const Eigen::VectorXf>& parameters);

// torch.optim.Adam without weight decay, step for step:
//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// With a weight decay wd, torch.optim.AdamW: first p *= 1 - lr wd. setLearningRate changes lr for
// the next steps (a warm-up), as assigning param_group["lr"] does in torch.
class Adam {
public:
    Adam(Eigen::Index size, double learning_rate, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
         double weight_decay = 0);
    void setLearningRate(double learning_rate) { lr_ = learning_rate; }
    // One step: parameters (size) updated in place from gradient (size).
    void step(Eigen::Ref<Eigen::VectorXf> parameters, const Eigen::Ref<const Eigen::VectorXf>& gradient);
    long long steps() const { return t_; }
    const Eigen::VectorXf& firstMoment() const { return m_; }
    const Eigen::VectorXf& secondMoment() const { return v_; }

private:
    double lr_, beta1_, beta2_, eps_, weight_decay_;
    Eigen::VectorXf m_, v_;
    long long t_ = 0;
};

}  // namespace headscope::train
