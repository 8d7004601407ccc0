// headscope-cli info: configuration, costs, per-head spectra and ranks, equivalence residuals.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Analysis.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"

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

}  // namespace

int runInfo(const QStringList& arguments) {
    QCommandLineParser parser;
    addConfigOptions(parser);
    parser.addOption({"json", "Print JSON instead of text."});
    parseOrThrow(parser, arguments);
    const Config config = configFromOptions(parser);
    const Analysis analysis = analyze(config, true);
    if (parser.isSet("json"))
        std::cout << infoJson(analysis).dump(2) << "\n";
    else
        printText(analysis);
    return 0;
}

}  // namespace headscope::cli
