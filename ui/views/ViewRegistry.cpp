#include "ViewRegistry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "CircuitView.h"
#include "CostView.h"
#include "FusedProjectionsView.h"
#include "HeadPatternsView.h"
#include "ModelOverviewView.h"
#include "ProjectionProductView.h"
#include "QueryKeyMapView.h"
#include "RotaryView.h"
#include "ScoreBreakdownView.h"
#include "TokenLinesView.h"
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
    // id, title, file stem, exportView kind, place, tab label, logits, factory (saves it),
    // then the tab's tool tip and the factory of its view (a tab's first entry only).
    static const std::vector<ViewEntry> entries = {
        {"heads", "Attention weights of every head", "attention_weights", K::AttentionWeights, kTab, "&Heads", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "The selected head large, every head beside it. Click a head to select it, double-click to open it with its numbers."),
         nullptr},
        {"logits", "Attention logits of every head", "attention_logits", K::AttentionLogits, kTab, "&Heads", true, saveAnalysisView, nullptr, nullptr},
        {"spectra", "Spectra of W_QK", "spectrum_qk", K::SpectrumQK, kDock, kDockTitle, false, saveAnalysisView, nullptr, nullptr},
        {"spectrum_ov", "Spectra of W_OV", "spectrum_ov", K::SpectrumOV, kDock, kDockTitle, false, saveAnalysisView, nullptr, nullptr},
        {"ranks", "Rank table", "rank_table", K::RankTable, kDock, kDockTitle, false, saveAnalysisView, nullptr, nullptr},
        {"projections", "Fused projections and Q, K, V", "projections", K::Projections, kTab, "&Projections", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "The fused W_Q, W_K, W_V, W_O and the activations X, Q, K, V, with head blocks."), makeView<FusedProjectionsView>},
        {"projection_product", "Projecting twice: (X W_Q) W_Kᵀ = X W_QK of the head", "projection_product_head_%1", K::ProjectionProduct, kTab, "T&wice", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "Projecting twice is one linear map: (X W_Q) W_K^T = X (W_Q W_K^T), with the largest difference."), makeView<ProjectionProductView>},
        {"circuits", "Circuit W_QK of the head", "circuit_qk_head_%1", K::CircuitQK, kTab, "C&ircuits", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "The selected head's W_QK = W_Q W_K^T and W_OV = W_V W_O with their factors."), makeView<CircuitView>},
        {"circuit_ov", "Circuit W_OV of the head", "circuit_ov_head_%1", K::CircuitOV, kTab, "C&ircuits", false, saveAnalysisView, nullptr, nullptr},
        {"costs", "Costs with formulas", "costs", K::Costs, kTab, "C&osts", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "Parameters and multiply-adds of each variant, with the formulas."), makeView<CostView>},
        {"model", "Every layer and head of the model", "model_overview", std::nullopt, kTab, "&Model", false, saveModelOverview,
         QT_TRANSLATE_NOOP("ViewRegistry", "Every layer and head of an opened model; click one to show it."), makeView<ModelOverviewView>},
        {"head_patterns", "What each head looks at", "head_patterns", std::nullopt, kTab, "Looks at", false, saveHeadPatterns,
         QT_TRANSLATE_NOOP("ViewRegistry", "Every head of an opened model: the share of its attention on the first token, [SEP], "
                                           "the previous or next token, itself, punctuation, the other sentence or induction keys."),
         makeView<HeadPatternsView>},
        {"score", "Score breakdown of one cell", "score_breakdown", K::ScoreBreakdown, kTab, "&Score", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "How the selected cell's score is made: q, k, q*k, the scale, the softmax row, W_QK."), makeView<ScoreBreakdownView>},
        {"token_lines", "Token lines of every head", "token_lines", K::TokenLines, kTab, "&Token lines", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "Lines from each query word to each key word, opacity = weight, one colour per head."), makeView<TokenLinesView>},
        {"qk_map", "Queries and keys of the head as points", "qk_map_head_%1", K::QueryKeyMap, kTab, "&Q-K map", false, saveAnalysisView,
         QT_TRANSLATE_NOOP("ViewRegistry", "The selected head's queries and keys as points on their first two principal components."), makeView<QueryKeyMapView>},
        {"training", "Training: loss, head scores and attention on the probe", "training", std::nullopt, kTab, "Trainin&g", false, saveTrainingRun,
         QT_TRANSLATE_NOOP("ViewRegistry", "Train a small transformer on repeated strings."), nullptr},
        {"ablation", "Knocked-out heads: log-probabilities before and after", "ablation", std::nullopt, kTab, "&Ablation", false, saveAblation,
         QT_TRANSLATE_NOOP("ViewRegistry", "What knocked-out heads cost: a loaded model's log-probability of each token before and after and each head's "
         "direct contribution to the predicted token's logit; a single layer's output, token by token."),
         nullptr},
        {"rope", "RoPE: the cell's logit against Δ and each head's frequency shares", "rope_head_%1", std::nullopt, kTab, "&RoPE", false, saveRotary,
         QT_TRANSLATE_NOOP("ViewRegistry", "Rotary layers: the selected cell's logit against the distance Δ = j − i, and "
                                           "how much of each head's W_Q W_Kᵀ lives in each rotary frequency."),
         makeView<RotaryView>},
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

QString tabTip(const ViewEntry& entry) {
    return entry.tab_tip ? QCoreApplication::translate("ViewRegistry", entry.tab_tip) : QString();
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
