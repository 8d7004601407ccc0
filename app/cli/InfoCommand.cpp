// headscope-cli info: configuration, costs, per-head spectra and ranks, equivalence residuals;
// with --ablate H,H [--ablate-mode zero|mean] also what knocking those heads out of the layer
// does to its output (model/AblationLayer.h): per position the norm of the change.
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "Analysis.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "model/AblationLayer.h"

namespace headscope::cli {

namespace {

std::vector<double> toVector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

nlohmann::json infoJson(const Analysis& a) {
    const Config& c = a.config;
    nlohmann::json j;
    j["d_model"] = c.d_model;
    j["heads"] = c.heads;
    j["d_k"] = c.headDimK();
    j["d_v"] = c.headDimV();
    j["kv_heads"] = c.kvHeads();
    j["seq_len"] = a.nQuery();
    j["source_len"] = a.nKeyValue();
    j["cross_attention"] = c.isCross();
    j["tokens"] = a.input.query.tokens;
    j["mask"] = toString(c.mask);
    j["scale"] = c.scale;
    j["temperature"] = c.temperature;
    j["seed"] = c.seed;
    j["init"] = toString(c.init);
    j["bias"] = c.bias;
    j["params"] = {{"qk_factored", a.cost.qk_factored_params},
                   {"qk_merged", a.cost.qk_merged_params},
                   {"total", a.cost.total_params}};
    j["flops"] = {{"logits_factored", a.cost.logits_factored_flops},
                  {"logits_merged", a.cost.logits_merged_flops},
                  {"attention_per_head", a.cost.attention_flops_per_head},
                  {"unit", "multiply-adds per head"}};
    j["per_head"] = nlohmann::json::array();
    for (int i = 0; i < c.heads; ++i) {
        const HeadSpectra& s = a.spectra[i];
        j["per_head"].push_back({{"head", i},
                                 {"qk_rank", s.qk.rank},
                                 {"qk_singular_values", toVector(s.qk.singular_values)},
                                 {"qk_tolerance", s.qk.tolerance},
                                 {"ov_rank", s.ov.rank},
                                 {"ov_singular_values", toVector(s.ov.singular_values)},
                                 {"ov_tolerance", s.ov.tolerance},
                                 {"logits_rank", a.logits[i].rank}});
    }
    j["equivalence"] = {{"fused_vs_per_head", a.equivalence->fused_vs_per_head},
                        {"factored_vs_merged", a.equivalence->factored_vs_merged},
                        {"max_abs_logit", a.equivalence->max_abs_logit}};
    return j;
}

void printText(const Analysis& a) {
    const Config& c = a.config;
    std::printf("HeadScope: multi-head attention, d_model %d, %d heads (d_k %d, d_v %d, %d key/value heads)\n",
                c.d_model, c.heads, c.headDimK(), c.headDimV(), c.kvHeads());
    std::printf("input: %d query tokens, %d key tokens (%s), mask %s, scale %s, temperature %g, seed %llu\n",
                a.nQuery(), a.nKeyValue(), c.isCross() ? "cross-attention" : "self-attention", toString(c.mask),
                c.scale ? "1/sqrt(d_k)" : "off", c.temperature, static_cast<unsigned long long>(c.seed));
    std::printf("\nparameters per head: W_Q,W_K factored %lld  vs  merged W_QK %lld  (layer total %lld)\n",
                a.cost.qk_factored_params, a.cost.qk_merged_params, a.cost.total_params);
    std::printf("logits per head (multiply-adds): factored %lld  vs  merged %lld\n", a.cost.logits_factored_flops,
                a.cost.logits_merged_flops);
    std::printf("\n%5s %8s %12s %12s %8s %12s\n", "head", "rank QK", "sigma_max", "sigma_min", "rank OV",
                "rank logits");
    for (int i = 0; i < c.heads; ++i) {
        const auto& qk = a.spectra[i].qk;
        const double lo = qk.singular_values.size() ? qk.singular_values.minCoeff() : 0.0;
        const double hi = qk.singular_values.size() ? qk.singular_values(0) : 0.0;
        std::printf("%5d %8d %12.5g %12.5g %8d %12d\n", i, qk.rank, hi, lo, a.spectra[i].ov.rank, a.logits[i].rank);
    }
    std::printf("\nrank W_QK <= min(d_k, d_model) = %d; rank logits <= min(n_q, n_kv, d_k) = %d\n",
                std::min(c.headDimK(), c.d_model), std::min({a.nQuery(), a.nKeyValue(), c.headDimK()}));
    std::printf("equivalence (max |difference| of logits, float32): fused vs per-head %.3g, factored vs merged %.3g "
                "(largest |logit| %.3g)\n",
                a.equivalence->fused_vs_per_head, a.equivalence->factored_vs_merged, a.equivalence->max_abs_logit);
}

nlohmann::json ablationJson(const Analysis& a, const model::LayerAblation& off) {
    std::vector<double> change(off.change.data(), off.change.data() + off.change.size());
    std::vector<double> norm(off.before_norm.data(), off.before_norm.data() + off.before_norm.size());
    return {{"heads", off.heads},
            {"mode", model::toString(off.mode)},
            {"tokens", a.input.query.tokens},
            {"output_norm", norm},
            {"change_norm", change},
            {"max_change", off.max_change},
            {"relative_change", off.relative_change},
            {"other_heads_max_difference", off.other_heads_max_difference}};
}

void printAblation(const Analysis& a, const model::LayerAblation& off) {
    std::string names;
    for (int h : off.heads) names += (names.empty() ? "" : ", ") + std::to_string(h);
    std::printf("\nheads %s knocked out (%s): the layer's output (n x d_model) per position, before and the change\n",
                names.c_str(), model::toString(off.mode));
    std::printf("%8s  %-16s %12s %12s\n", "position", "token", "|output|", "|change|");
    for (int p = 0; p < off.change.size(); ++p)
        std::printf("%8d  %-16s %12.5g %12.5g\n", p, a.input.query.tokens[std::size_t(p)].c_str(), off.before_norm(p),
                    off.change(p));
    std::printf("largest change %.5g; |after - before| / |before| = %.4g (Frobenius); the other heads' outputs "
                "differ by %.3g\n",
                off.max_change, off.relative_change, off.other_heads_max_difference);
}

}  // namespace

int runInfo(const QStringList& arguments) {
    QCommandLineParser parser;
    addConfigOptions(parser);
    parser.addOption({"json", "Print JSON instead of text."});
    parser.addOption({"ablate", "Heads to knock out of the layer, e.g. 0,2.", "H,H"});
    parser.addOption({"ablate-mode", "zero (default) or mean: the heads' outputs zeroed or replaced by their mean.", "MODE"});
    parseOrThrow(parser, arguments);
    const Config config = configFromOptions(parser);
    if (parser.isSet("ablate-mode") && !parser.isSet("ablate"))
        throw UsageError("--ablate-mode needs --ablate H,... (the heads to knock out)");
    const QString mode = parser.value("ablate-mode");
    if (parser.isSet("ablate-mode") && mode != "zero" && mode != "mean")
        throw UsageError("--ablate-mode must be zero or mean, got '" + mode.toStdString() + "'");
    const Analysis analysis = analyze(config, true);
    std::optional<model::LayerAblation> off;
    if (parser.isSet("ablate")) {
        try {
            off = model::ablateAttentionLayer(model::parseLayerHeadList(parser.value("ablate").toStdString()),
                                              mode == "mean" ? model::AblationMode::Mean : model::AblationMode::Zero,
                                              analysis.weights(), analysis.results);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--ablate: ") + e.what());
        }
    }
    if (parser.isSet("json")) {
        nlohmann::json j = infoJson(analysis);
        if (off) j["ablation"] = ablationJson(analysis, *off);
        std::cout << j.dump(2) << "\n";
    } else {
        printText(analysis);
        if (off) printAblation(analysis, *off);
    }
    return 0;
}

}  // namespace headscope::cli
