#include "cli/ModelAblation.h"

#include <algorithm>
#include <cstdio>

#include "cli/Arguments.h"
#include "model/Attribution.h"

namespace headscope::cli {

namespace {

std::string tokenText(const model::Model& m, int id) { return m.tokenizer->hasId(id) ? m.tokenizer->decode({id}) : ""; }

nlohmann::json logProbsJson(const model::Model& m, const model::TokenLogProbs& lp) {
    nlohmann::json list = nlohmann::json::array();
    for (const model::TokenLogProb& t : lp.tokens)
        list.push_back({{"position", t.position},
                        {"id", t.id},
                        {"token", tokenText(m, t.id)},
                        {"logprob", t.logprob},
                        {"top", t.top}});
    return list;
}

nlohmann::json runJson(const model::Model& m, const model::Trace& trace, const model::TokenLogProbs& lp) {
    nlohmann::json next = nlohmann::json::array();
    for (const model::NextToken& t : model::topNextTokens(m, trace, kTopTokens))
        next.push_back({{"id", t.id}, {"token", tokenText(m, t.id)}, {"probability", t.probability}});
    return {{"loss", lp.loss}, {"token_logprobs", logProbsJson(m, lp)}, {"next_tokens", std::move(next)}};
}

// The token padded to `width` characters (UTF-8 code points, not bytes: "␣" is one).
std::string padded(const std::string& token, int width) {
    int chars = 0;
    for (unsigned char c : token) chars += (c & 0xC0) != 0x80 ? 1 : 0;
    return token + std::string(static_cast<std::size_t>(std::max(0, width - chars)), ' ');
}

}  // namespace

model::Ablation ablationFromOptions(const QCommandLineParser& parser, const model::ModelConfig& config) {
    model::Ablation ablation;
    if (parser.isSet("ablate-mode")) {
        if (!parser.isSet("ablate")) throw UsageError("--ablate-mode needs --ablate L.H,... (the heads to knock out)");
        const QString mode = parser.value("ablate-mode");
        if (mode != "zero" && mode != "mean")
            throw UsageError("--ablate-mode must be zero or mean, got '" + mode.toStdString() + "'");
        ablation.mode = mode == "mean" ? model::AblationMode::Mean : model::AblationMode::Zero;
    }
    if (!parser.isSet("ablate")) return ablation;
    try {
        for (const model::HeadRef& head : model::parseHeadList(parser.value("ablate").toStdString())) ablation.add(head);
        model::checkAblation(ablation, config.n_layer, config.n_head);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--ablate: ") + e.what());
    }
    return ablation;
}

void addAblationJson(nlohmann::json& j, const model::Model& m, const model::Trace& trace,
                     const std::optional<model::Trace>& before) {
    const model::Ablation& ablation = trace.options.ablation;
    j["ablated"] = nlohmann::json::array();
    for (const model::HeadRef& h : ablation.heads) j["ablated"].push_back({{"layer", h.layer}, {"head", h.head}});
    j["ablate_mode"] = model::toString(ablation.mode);
    if (m.config.encoder) {  // no next token: the guesses at each [MASK] before the heads went off (j["masked"]: after)
        if (!before) return;
        j["masked_before"] = nlohmann::json::array();
        for (int position : model::maskedPositions(m, *before)) {
            nlohmann::json top = nlohmann::json::array();
            for (const model::NextToken& t : model::topTokensAt(m, *before, position, 10))
                top.push_back({{"id", t.id}, {"label", t.token}, {"probability", t.probability}});
            j["masked_before"].push_back({{"position", position}, {"top", std::move(top)}});
        }
        return;
    }
    const model::TokenLogProbs lp = model::tokenLogProbs(m, trace);
    j["loss"] = lp.loss;
    j["token_logprobs"] = logProbsJson(m, lp);
    const model::Trace& intact = before ? *before : trace;
    // Each head's direct contribution to the intact model's predicted token, sigma frozen from the intact run.
    const model::DirectAttribution unablated = model::directAttribution(m, intact);
    const model::DirectAttribution a = model::directAttribution(m, trace, -1, unablated.token, &intact);
    nlohmann::json heads = nlohmann::json::array();
    for (Eigen::Index l = 0; l < a.heads.rows(); ++l) {
        std::vector<double> row(a.heads.cols());
        for (Eigen::Index i = 0; i < a.heads.cols(); ++i) row[i] = a.heads(l, i);
        heads.push_back(row);
    }
    j["direct_attribution"] = {{"position", a.position}, {"id", a.token},     {"token", tokenText(m, a.token)},
                               {"logit", a.logit},       {"scale", a.scale}, {"heads", std::move(heads)}};
    if (!before) return;
    const model::TokenLogProbs lp_before = model::tokenLogProbs(m, *before);
    j["before"] = runJson(m, *before, lp_before);
    j["after"] = runJson(m, trace, lp);
    j["loss_change"] = lp.loss - lp_before.loss;
}

void printAblation(const model::Model& m, const model::Trace& trace, const std::optional<model::Trace>& before) {
    if (m.config.encoder) {  // the guesses at each [MASK] with the heads on, then off
        if (!before) return;
        for (int position : model::maskedPositions(m, *before)) {
            const std::vector<model::NextToken> on = model::topTokensAt(m, *before, position, 5);
            const std::vector<model::NextToken> off = model::topTokensAt(m, trace, position, 5);
            std::printf("\nguesses at position %d, heads on -> off:\n", position);
            for (std::size_t r = 0; r < on.size(); ++r)
                std::printf("%4zu. %-12s %8.4f   ->  %-12s %8.4f\n", r + 1, on[r].token.c_str(), on[r].probability,
                            off[r].token.c_str(), off[r].probability);
        }
        return;
    }
    const model::TokenLogProbs after = model::tokenLogProbs(m, trace);
    if (after.tokens.empty()) {
        std::printf("\none token: there is no next token of the input to predict\n");
        return;
    }
    if (!before) {
        std::printf("\nlog-probability of each actual next token (* the model's first choice); loss %.4f:\n%9s  %s %10s\n",
                    after.loss, "position", padded("token", 8).c_str(), "log p");
        for (const model::TokenLogProb& t : after.tokens)
            std::printf("%9d  %s %10.4f%s\n", t.position, padded(t.token, 8).c_str(), t.logprob, t.top ? " *" : "");
        return;
    }
    std::string off;
    for (const model::HeadRef& h : trace.options.ablation.heads) off += (off.empty() ? "" : ", ") + model::toString(h);
    const model::TokenLogProbs intact = model::tokenLogProbs(m, *before);
    std::printf("\nheads off (%s ablation): %s\nloss %.4f -> %.4f (%+.4f)\n", model::toString(trace.options.ablation.mode),
                off.c_str(), intact.loss, after.loss, after.loss - intact.loss);
    std::printf("log-probability of each actual next token, before -> after (* the model's first choice):\n"
                "%9s  %s %10s %10s %10s\n", "position", padded("token", 8).c_str(), "before", "after", "change");
    for (std::size_t i = 0; i < after.tokens.size(); ++i) {
        const model::TokenLogProb& b = intact.tokens[i];
        const model::TokenLogProb& a = after.tokens[i];
        std::printf("%9d  %s %9.4f%s %9.4f%s %+10.4f\n", a.position, padded(a.token, 8).c_str(), b.logprob, b.top ? "*" : " ",
                    a.logprob, a.top ? "*" : " ", a.logprob - b.logprob);
    }
}

}  // namespace headscope::cli
