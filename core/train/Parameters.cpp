#include "train/Parameters.h"

#include <cmath>
#include <stdexcept>

#include "Random.h"

namespace headscope::train {

Eigen::Index ParameterLayout::add(const std::string& name, std::vector<std::int64_t> shape) {
    ParameterInfo info;
    info.name = name;
    info.rows = shape.size() == 1 ? 1 : shape[0];
    info.cols = shape.size() == 1 ? shape[0] : shape[1];
    info.shape = std::move(shape);
    info.offset = size_;
    size_ += info.rows * info.cols;
    entries_.push_back(std::move(info));
    return entries_.back().offset;
}

ParameterLayout::ParameterLayout(const TrainConfig& c) {
    const std::int64_t d = c.d_model, inner = c.mlpWidth();
    wte = add("wte.weight", {c.vocab, d});
    wpe = add("wpe.weight", {c.context, d});
    for (int l = 0; l < c.layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        LayerOffsets o;
        o.ln_1_weight = add(h + "ln_1.weight", {d});
        o.ln_1_bias = add(h + "ln_1.bias", {d});
        o.c_attn_weight = add(h + "attn.c_attn.weight", {d, 3 * d});
        o.c_attn_bias = add(h + "attn.c_attn.bias", {3 * d});
        o.c_proj_weight = add(h + "attn.c_proj.weight", {d, d});
        o.c_proj_bias = add(h + "attn.c_proj.bias", {d});
        if (c.mlp) {
            o.ln_2_weight = add(h + "ln_2.weight", {d});
            o.ln_2_bias = add(h + "ln_2.bias", {d});
            o.c_fc_weight = add(h + "mlp.c_fc.weight", {d, inner});
            o.c_fc_bias = add(h + "mlp.c_fc.bias", {inner});
            o.mlp_proj_weight = add(h + "mlp.c_proj.weight", {inner, d});
            o.mlp_proj_bias = add(h + "mlp.c_proj.bias", {d});
        }
        layers.push_back(o);
    }
    ln_f_weight = add("ln_f.weight", {d});
    ln_f_bias = add("ln_f.bias", {d});
    if (!c.tied_embeddings) lm_head = add("lm_head.weight", {c.vocab, d});
}

const ParameterInfo* ParameterLayout::find(const std::string& name) const {
    for (const ParameterInfo& info : entries_)
        if (info.name == name) return &info;
    return nullptr;
}

Eigen::VectorXf initialParameters(const TrainConfig& c, const ParameterLayout& layout) {
    Eigen::VectorXf p = Eigen::VectorXf::Zero(layout.size());
    const double residual_std = c.init_std / std::sqrt(2.0 * c.layers);
    for (const ParameterInfo& info : layout.entries()) {
        const bool scale = info.name.find("ln_") != std::string::npos && info.name.ends_with(".weight");
        const bool bias = info.name.ends_with(".bias");
        const bool residual = info.name.ends_with("c_proj.weight");
        float* values = p.data() + info.offset;
        const Eigen::Index count = info.rows * info.cols;
        if (scale) {
            std::fill(values, values + count, 1.0f);
        } else if (!bias) {
            Rng rng(deriveSeed(c.seed, info.name));  // one stream per tensor: adding one moves no other
            const double sigma = residual ? residual_std : c.init_std;
            for (Eigen::Index i = 0; i < count; ++i) values[i] = static_cast<float>(sigma * rng.normal());
        }
    }
    return p;
}

Eigen::VectorXf parametersFromTensors(const ParameterLayout& layout, const std::map<std::string, io::Tensor>& tensors) {
    Eigen::VectorXf p(layout.size());
    for (const ParameterInfo& info : layout.entries()) {
        const auto found = tensors.find(info.name);
        if (found == tensors.end()) throw std::invalid_argument("the tensor " + info.name + " is missing");
        const io::Tensor& t = found->second;
        if (t.shape != info.shape || t.data.size() != std::size_t(info.rows * info.cols))
            throw std::invalid_argument("the tensor " + info.name + " has shape " + io::shapeToString(t.shape) +
                                        " instead of " + io::shapeToString(info.shape));
        Eigen::Map<Eigen::MatrixXf> view(p.data() + info.offset, info.rows, info.cols);
        if (info.shape.size() == 1)
            view = Eigen::Map<const Eigen::RowVectorXf>(t.data.data(), info.cols);
        else
            view = io::toMatrix(t);
    }
    return p;
}

std::map<std::string, io::Tensor> tensorsFromParameters(const ParameterLayout& layout,
                                                        const Eigen::Ref<const Eigen::VectorXf>& p) {
    std::map<std::string, io::Tensor> tensors;
    for (const ParameterInfo& info : layout.entries()) {
        io::Tensor t = io::fromMatrix(Eigen::Map<const Eigen::MatrixXf>(p.data() + info.offset, info.rows, info.cols));
        t.shape = info.shape;
        tensors[info.name] = std::move(t);
    }
    return tensors;
}

Adam::Adam(Eigen::Index size, double learning_rate, double beta1, double beta2, double eps, double weight_decay)
    : lr_(learning_rate), beta1_(beta1), beta2_(beta2), eps_(eps), weight_decay_(weight_decay), m_(Eigen::VectorXf::Zero(size)),
      v_(Eigen::VectorXf::Zero(size)) {}

void Adam::step(Eigen::Ref<Eigen::VectorXf> parameters, const Eigen::Ref<const Eigen::VectorXf>& gradient) {
    ++t_;
    // The scalars in double, as torch computes them in Python, then used in float.
    const double bias_correction1 = 1.0 - std::pow(beta1_, double(t_));
    const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(beta2_, double(t_)));
    const float step_size = static_cast<float>(lr_ / bias_correction1);
    const float b1 = float(beta1_), b2 = float(beta2_), eps = float(eps_);
    const float bc2_sqrt = static_cast<float>(bias_correction2_sqrt);
    if (weight_decay_ > 0) parameters *= static_cast<float>(1.0 - lr_ * weight_decay_);  // AdamW: p.mul_(1 - lr wd)
    m_.array() = b1 * m_.array() + (1.0f - b1) * gradient.array();                          // torch: lerp
    v_.array() = b2 * v_.array() + (1.0f - b2) * gradient.array().square();                 // mul_, addcmul_
    parameters.array() -= step_size * m_.array() / (v_.array().sqrt() / bc2_sqrt + eps);     // addcdiv_
}

}  // namespace headscope::train
