#pragma once
// --delta N of `export` and `model --out` (issue 22 item 4): with rotary positions W_QK,i
// depends on the distance Delta = j - i between key and query,
//   W_QK,i(Delta) = W_i^Q M(Delta) (W_g^K)^T   (d_model, d_model)   (core RotaryCircuits.h),
// so the W_QK pictures (spectra, rank table, circuit) are drawn at Delta and say so in their
// titles, and each head's W_QK,i(Delta) is written beside W_QK,i as head_<i>_W_QK_delta_<N>.
// A layer without rotary positions has one W_QK,i for every distance: --delta is refused there.

#include <QCommandLineParser>
#include <Eigen/Core>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "Analysis.h"
#include "RotaryCircuits.h"
#include "cli/Arguments.h"
#include "io/Csv.h"
#include "io/MatrixExport.h"
#include "io/Npy.h"

namespace headscope::cli {

inline QCommandLineOption deltaOption() {
    return {"delta", "Rotary (RoPE) models only: draw the W_QK pictures at W_QK,i(Δ) = W_i^Q R(Δ) (W_i^K)ᵀ, Δ = key "
                     "position minus query position, and write head_<i>_W_QK_delta_<Δ> (csv/npy) beside W_QK.", "N"};}

// The Delta asked for, checked against the layer: nullopt when --delta is not set.
inline std::optional<int> parseDelta(const QCommandLineParser& parser, const Analysis& layer) {
    if (!parser.isSet("delta")) return std::nullopt;
    if (!layer.rotary.enabled())
        throw UsageError("--delta applies only to models with rotary positions (RoPE); this one has none, so its W_QK "
                         "does not depend on the distance Δ");
    // Every key position minus every query position of the input (the window's slider range).
    int low = 0, high = 0;
    bool first = true;
    for (int i : {0, layer.nQuery() - 1})
        for (int j : {0, layer.nKeyValue() - 1}) {
            const int d = cellDelta(layer.rotary, i, j);
            low = first ? d : std::min(low, d);
            high = first ? d : std::max(high, d);
            first = false;
        }
    bool ok = false;
    const long long delta = parser.value("delta").trimmed().toLongLong(&ok);
    if (!ok) throw UsageError("--delta expects a whole number, got '" + parser.value("delta").toStdString() + "'");
    if (delta < low || delta > high)
        throw UsageError("--delta " + parser.value("delta").toStdString() + " is out of range for this input: choose " +
                         std::to_string(low) + " to " + std::to_string(high) + " (key position minus query position)");
    return static_cast<int>(delta);
}

// head_<i>_W_QK_delta_<N>.csv / .npy (d_model, d_model) for every head into dir; the paths written.
inline std::vector<std::string> writeRotatedQK(const Analysis& layer, int delta, const std::string& dir,
                                               const std::vector<io::MatrixFormat>& formats) {
    std::vector<std::string> written;
    const Weights& w = layer.weights();
    for (int h = 0; h < w.heads; ++h) {
        const ThinFactors f = rotatedQueryKey(w, h, layer.rotary, delta);
        const Eigen::MatrixXf W_QK = (f.A * f.B.transpose()).cast<float>();  // (d_model, d_k) (d_k, d_model)
        const std::string stem = dir + "/head_" + std::to_string(h) + "_W_QK_delta_" + std::to_string(delta);
        for (io::MatrixFormat format : formats) {
            written.push_back(stem + (format == io::MatrixFormat::Csv ? ".csv" : ".npy"));
            if (format == io::MatrixFormat::Csv) io::writeCsv(written.back(), W_QK);
            else io::writeNpy(written.back(), W_QK);
        }
    }
    return written;
}

}  // namespace headscope::cli
