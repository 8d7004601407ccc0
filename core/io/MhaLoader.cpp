#include "io/MhaLoader.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <vector>

#include "Config.h"
#include "Strings.h"
#include "io/Quote.h"
#include "io/Safetensors.h"

namespace headscope::io {
namespace {

// Flat C-order index -> "[i, j, ...]" for the given shape.
std::string multiIndex(std::size_t flat, const std::vector<std::int64_t>& shape) {
    std::vector<std::string> parts(shape.size());
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        const auto dim = static_cast<std::size_t>(shape[axis]);
        parts[axis] = std::to_string(flat % dim);
        flat /= dim;
    }
    return "[" + joinStrings(parts, ", ") + "]";
}

class Loader {
public:
    Loader(const std::string& path, const std::string& prefix) : path_(path), prefix_(prefix), file_(path) {}

    Weights load(int heads) {
        rejectUnsupportedVariants();
        const bool fused = has("in_proj_weight");
        const bool separate = has("q_proj_weight") && has("k_proj_weight") && has("v_proj_weight");
        reportMissing(fused || separate);

        // Shapes first, so nothing is read from a file that cannot be used.
        const std::int64_t d = fused ? fusedEmbedDim() : separateEmbedDim();
        expectShape("out_proj.weight", {d, d});
        const bool has_in_bias = has("in_proj_bias"), has_out_bias = has("out_proj.bias");
        if (has_in_bias) expectShape("in_proj_bias", {3 * d});
        if (has_out_bias) expectShape("out_proj.bias", {d});
        if (d % heads != 0) fail("heads=" + std::to_string(heads) + " does not divide embed_dim " + std::to_string(d) +
                                 "; head counts that work: " + divisors(d));

        Weights weights;
        weights.heads = weights.kv_heads = heads;
        weights.d_k = weights.d_v = static_cast<int>(d / heads);
        if (fused) {
            const Eigen::MatrixXf in_proj = matrix("in_proj_weight");  // (3d, d), rows [q; k; v], (out, in)
            weights.W_Q = in_proj.topRows(d).transpose();              // (d, d) = (d_model, h*d_k)
            weights.W_K = in_proj.middleRows(d, d).transpose();        // (d, d)
            weights.W_V = in_proj.bottomRows(d).transpose();           // (d, d)
        } else {
            weights.W_Q = matrix("q_proj_weight").transpose();  // (d, d)
            weights.W_K = matrix("k_proj_weight").transpose();  // (d, d)
            weights.W_V = matrix("v_proj_weight").transpose();  // (d, d)
        }
        weights.W_O = matrix("out_proj.weight").transpose();  // (d, d) = (h*d_v, d_model)

        if (has_in_bias || has_out_bias) {
            const Eigen::RowVectorXf in_bias = has_in_bias ? vector("in_proj_bias") : Eigen::RowVectorXf::Zero(3 * d);  // (3d)
            weights.b_Q = in_bias.segment(0, d);
            weights.b_K = in_bias.segment(d, d);
            weights.b_V = in_bias.segment(2 * d, d);
            weights.b_O = has_out_bias ? vector("out_proj.bias") : Eigen::RowVectorXf::Zero(d);  // (d)
        }

        const std::string problem = weights.check();
        if (!problem.empty()) fail("the loaded weights are inconsistent: " + problem);
        return weights;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw IoError("cannot load nn.MultiheadAttention weights from " + quotePath(path_) + ": " + why);
    }

    std::string name(const std::string& suffix) const { return prefix_ + suffix; }
    bool has(const std::string& suffix) const { return file_.contains(name(suffix)); }
    const std::vector<std::int64_t>& shapeOf(const std::string& suffix) const { return file_.shape(name(suffix)); }

    void rejectUnsupportedVariants() const {
        if (has("bias_k") || has("bias_v"))
            fail("the layer was built with add_bias_kv=True (tensors " + quote(name("bias_k")) + ", " + quote(name("bias_v")) +
                 "), which is not supported");
    }

    void reportMissing(bool has_in_projection) const {
        std::vector<std::string> missing;
        if (!has_in_projection)
            missing.push_back(quote(name("in_proj_weight")) + " (or all three of " + quote(name("q_proj_weight")) + ", " +
                              quote(name("k_proj_weight")) + ", " + quote(name("v_proj_weight")) + ")");
        if (!has("out_proj.weight")) missing.push_back(quote(name("out_proj.weight")));
        if (missing.empty()) return;
        fail("it has no tensor " + joinStrings(missing, " and no tensor ") + hint());
    }

    // Suggests the prefixes under which the file does hold attention weights.
    std::string hint() const {
        std::set<std::string> prefixes;
        const std::vector<std::string> names = file_.names();
        for (const std::string& n : names)
            for (const std::string suffix : {"in_proj_weight", "q_proj_weight", "out_proj.weight"})
                if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
                    prefixes.insert(quote(n.substr(0, n.size() - suffix.size())));
        if (!prefixes.empty()) {
            std::vector<std::string> list(prefixes.begin(), prefixes.end());
            if (list.size() > 5) {
                list.resize(5);
                list.push_back("...");
            }
            return "; the file has attention weights under the prefix " + joinStrings(list, ", ");
        }
        if (names.empty()) return "; the file holds no tensors";
        std::vector<std::string> list;
        for (std::size_t i = 0; i < names.size() && i < 5; ++i) list.push_back(quote(names[i]));
        if (names.size() > 5) list.push_back("...");
        return "; it holds " + joinStrings(list, ", ");
    }

    void expectShape(const std::string& suffix, const std::vector<std::int64_t>& expected) const {
        const auto& found = shapeOf(suffix);
        if (found != expected)
            fail("tensor " + quote(name(suffix)) + " has shape " + shapeToString(found) + ", expected " + shapeToString(expected));
    }

    // d from in_proj_weight (3d, d).
    std::int64_t fusedEmbedDim() const {
        const auto& shape = shapeOf("in_proj_weight");
        if (shape.size() == 2 && shape[1] >= 1 && shape[1] <= INT_MAX / 3 && shape[0] == 3 * shape[1]) return shape[1];
        const std::string expected =
            shape.size() == 2 && shape[1] >= 1 && shape[1] <= INT_MAX / 3 ? " = " + shapeToString({3 * shape[1], shape[1]}) : "";
        fail("tensor " + quote(name("in_proj_weight")) + " has shape " + shapeToString(shape) +
             ", expected (3 * embed_dim, embed_dim)" + expected);
    }

    // d from q_proj_weight (d, d); k_proj_weight and v_proj_weight must be (d, d) too.
    std::int64_t separateEmbedDim() const {
        const auto& q = shapeOf("q_proj_weight");
        if (q.size() != 2 || q[0] != q[1] || q[0] < 1 || q[0] > INT_MAX / 3)
            fail("tensor " + quote(name("q_proj_weight")) + " has shape " + shapeToString(q) +
                 ", expected a square (embed_dim, embed_dim) matrix");
        const std::int64_t d = q[0];
        for (const char* other : {"k_proj_weight", "v_proj_weight"}) {
            const auto& shape = shapeOf(other);
            if (shape.size() == 2 && shape[0] == d && shape[1] != d)
                fail("tensor " + quote(name(other)) + " has shape " + shapeToString(shape) + ": kdim / vdim (" +
                     std::to_string(shape[1]) + ") different from embed_dim (" + std::to_string(d) + ") is not supported");
            expectShape(other, {d, d});
        }
        return d;
    }

    // The head counts HeadScope accepts (1 to Limits::kMaxHeads) that divide d: a bounded
    // search whatever embed_dim the file claims.
    static std::string divisors(std::int64_t d) {
        std::vector<std::string> list;
        for (std::int64_t k = 1; k <= std::min<std::int64_t>(d, Limits::kMaxHeads); ++k)
            if (d % k == 0) list.push_back(std::to_string(k));
        return joinStrings(list, ", ");
    }

    // Reads a tensor whose shape was checked, rejecting NaN and infinity.
    Tensor finiteTensor(const std::string& suffix) {
        Tensor tensor = file_.read(name(suffix));
        for (std::size_t i = 0; i < tensor.data.size(); ++i)
            if (!std::isfinite(tensor.data[i]))
                fail("tensor " + quote(name(suffix)) + " has the non-finite value " +
                     (std::isnan(tensor.data[i]) ? "nan" : tensor.data[i] > 0 ? "inf" : "-inf") + " at index " +
                     multiIndex(i, tensor.shape));
        return tensor;
    }

    Eigen::MatrixXf matrix(const std::string& suffix) { return toMatrix(finiteTensor(suffix)); }

    Eigen::RowVectorXf vector(const std::string& suffix) {
        const Tensor tensor = finiteTensor(suffix);
        return Eigen::Map<const Eigen::RowVectorXf>(tensor.data.data(), static_cast<Eigen::Index>(tensor.data.size()));
    }

    std::string path_, prefix_;
    SafetensorsReader file_;
};

}  // namespace

Weights loadMultiheadAttention(const std::string& path, int heads, const std::string& prefix) {
    if (heads < 1)
        throw IoError("cannot load nn.MultiheadAttention weights from " + quotePath(path) + ": heads must be at least 1, got " +
                      std::to_string(heads));
    return Loader(path, prefix).load(heads);
}

}  // namespace headscope::io
