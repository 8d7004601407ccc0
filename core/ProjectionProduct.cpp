#include "ProjectionProduct.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace headscope {

ProjectionProduct projectTwice(const Eigen::Ref<const Eigen::MatrixXf>& X, const Weights& w, int head) {
    if (head < 0 || head >= w.heads)
        throw std::invalid_argument("Head " + std::to_string(head) + " does not exist: the layer has " +
                                    std::to_string(w.heads) + " heads.");
    if (X.cols() != w.dModel())
        throw std::invalid_argument("The tokens have " + std::to_string(X.cols()) + " coordinates, the layer expects d_model = " +
                                    std::to_string(w.dModel()) + ".");
    const auto W_1 = w.queryHead(head);              // (d_model, d_k)
    const Eigen::MatrixXf W_2 = w.keyHead(head).transpose();  // (d_k, d_model)
    ProjectionProduct p;
    p.head = head;
    p.first = X * W_1;                                // (n, d_model) x (d_model, d_k) -> (n, d_k)
    p.twice = p.first * W_2;                          // (n, d_k) x (d_k, d_model) -> (n, d_model)
    const Eigen::MatrixXf W_12 = W_1 * W_2;           // (d_model, d_k) x (d_k, d_model) -> (d_model, d_model)
    p.merged = X * W_12;                              // (n, d_model) x (d_model, d_model) -> (n, d_model)
    p.max_difference = p.twice.size() ? double((p.twice - p.merged).cwiseAbs().maxCoeff()) : 0.0;
    p.max_abs = p.merged.size() ? double(p.merged.cwiseAbs().maxCoeff()) : 0.0;
    // |X| |W_1| |W_2| (n, d_model): the magnitudes every entry's sums run over.
    const Eigen::MatrixXf magnitude = (X.cwiseAbs() * W_1.cwiseAbs()) * W_2.cwiseAbs();
    const double u = std::numeric_limits<float>::epsilon() / 2;  // unit roundoff 2^-24
    p.rounding_bound = magnitude.size() ? 2.0 * double(w.dModel() + w.d_k) * u * double(magnitude.maxCoeff()) : 0.0;
    return p;
}

}  // namespace headscope
