#include "ViewRegistry.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "ViewRegistrySaves.h"

namespace headscope::ui {

namespace {

// The views Export draws from one layer's Analysis (exportView).
bool saveAnalysisView(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format,
                      double scale, QString* error) {
    if (!in.analysis) {
        if (error) *error = QStringLiteral("The %1 view needs an analysis to draw.").arg(QLatin1String(entry.id));
        return false;
    }
    return exportView(*entry.kind, *in.analysis, in.head, in.options, path, format, scale, error, in.circuits,
                      in.cell_row, in.cell_col);
}

using K = ViewKind;
constexpr ViewPlace kTab = ViewPlace::Tab, kDock = ViewPlace::SpectrumDock;
constexpr const char* kDockTitle = "Spectra and ranks";

}  // namespace

const std::vector<ViewEntry>& viewRegistry() {
    // id, title, file stem, exportView kind, place, tab label, logits, factory
    static const std::vector<ViewEntry> entries = {
        {"heads", "Attention weights of every head", "attention_weights", K::AttentionWeights, kTab, "&Heads", false, saveAnalysisView},
        {"logits", "Attention logits of every head", "attention_logits", K::AttentionLogits, kTab, "&Heads", true, saveAnalysisView},
        {"spectra", "Spectra of W_QK", "spectrum_qk", K::SpectrumQK, kDock, kDockTitle, false, saveAnalysisView},
        {"spectrum_ov", "Spectra of W_OV", "spectrum_ov", K::SpectrumOV, kDock, kDockTitle, false, saveAnalysisView},
        {"ranks", "Rank table", "rank_table", K::RankTable, kDock, kDockTitle, false, saveAnalysisView},
        {"projections", "Fused projections and Q, K, V", "projections", K::Projections, kTab, "&Projections", false, saveAnalysisView},
        {"projection_product", "Projecting twice: (X W_Q) W_Kᵀ = X W_QK of the head", "projection_product_head_%1", K::ProjectionProduct, kTab, "T&wice", false, saveAnalysisView},
        {"circuits", "Circuit W_QK of the head", "circuit_qk_head_%1", K::CircuitQK, kTab, "C&ircuits", false, saveAnalysisView},
        {"circuit_ov", "Circuit W_OV of the head", "circuit_ov_head_%1", K::CircuitOV, kTab, "C&ircuits", false, saveAnalysisView},
        {"costs", "Costs with formulas", "costs", K::Costs, kTab, "C&osts", false, saveAnalysisView},
        {"model", "Every layer and head of the model", "model_overview", std::nullopt, kTab, "&Model", false, saveModelOverview},
        {"score", "Score breakdown of one cell", "score_breakdown", K::ScoreBreakdown, kTab, "&Score", false, saveAnalysisView},
        {"token_lines", "Token lines of every head", "token_lines", K::TokenLines, kTab, "&Token lines", false, saveAnalysisView},
        {"qk_map", "Queries and keys of the head as points", "qk_map_head_%1", K::QueryKeyMap, kTab, "&Q-K map", false, saveAnalysisView},
        {"training", "Training: loss, head scores and attention on the probe", "training", std::nullopt, kTab, "Trainin&g", false, saveTrainingRun},
        {"ablation", "Knocked-out heads: log-probabilities before and after", "ablation", std::nullopt, kTab, "&Ablation", false, saveAblation},
    };
    return entries;
}

const ViewEntry* findView(const std::string& id) {
    const auto& all = viewRegistry();
    const auto it = std::find_if(all.begin(), all.end(), [&](const ViewEntry& e) { return id == e.id; });
    return it == all.end() ? nullptr : &*it;
}

const ViewEntry& viewEntry(ViewKind kind) {
    for (const ViewEntry& e : viewRegistry())
        if (e.kind == kind) return e;
    return viewRegistry().front();  // unreachable: test_view_registry checks every kind is listed
}

std::vector<std::string> viewIds() {
    std::vector<std::string> ids;
    for (const ViewEntry& e : viewRegistry()) ids.emplace_back(e.id);
    return ids;
}

std::vector<ViewKind> exportedViews() {
    std::vector<ViewKind> kinds;
    for (const ViewEntry& e : viewRegistry())
        if (e.kind) kinds.push_back(*e.kind);
    return kinds;
}

QString fileStem(const ViewEntry& entry, int head) {
    const QString stem = QLatin1String(entry.file_stem);
    return stem.contains(QLatin1String("%1")) ? stem.arg(head) : stem;
}

QString tabLabel(const char* id) {
    const ViewEntry* entry = findView(id);
    return entry ? QString::fromUtf8(entry->tab_label) : QString();
}

QString tabTitle(const ViewEntry& entry) { return QString::fromUtf8(entry.tab_label).remove(QLatin1Char('&')); }

bool saveView(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format, double scale,
              QString* error) {
    if (!QFileInfo(path).absoluteDir().exists()) {
        if (error) *error = QStringLiteral("Cannot export '%1': its folder does not exist.").arg(path);
        return false;
    }
    return entry.save(entry, inputs, path, format, scale, error);
}

}  // namespace headscope::ui
