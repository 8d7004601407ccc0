#pragma once
// headscope-cli model: knocking heads out (--ablate L.H,L.H --ablate-mode zero|mean), the
// log-probability of each actual next token and the loss, before and after, and each head's
// direct contribution to the predicted token's logit (core/model/Ablation.h, LogProbs.h,
// Attribution.h).

#include <QCommandLineParser>
#include <nlohmann/json.hpp>
#include <optional>

#include "model/Ablation.h"
#include "model/Forward.h"
#include "model/LogProbs.h"

namespace headscope::cli {

// How many of the likeliest next tokens `model` lists, and lists again after a knock-out.
inline constexpr int kTopTokens = 10;

// The heads --ablate names and --ablate-mode; UsageError (one line) for a value that is not
// L.H, a head the model lacks, an unknown mode, or --ablate-mode without --ablate.
model::Ablation ablationFromOptions(const QCommandLineParser& parser, const model::ModelConfig& config);

// trace: the run as asked (heads off when --ablate); before: the intact run when heads are off.
// Adds "ablated", "ablate_mode", "loss", "token_logprobs" and "direct_attribution"; with heads
// off also "before" and "after" (each "loss", "token_logprobs", "next_tokens") and "loss_change".
void addAblationJson(nlohmann::json& j, const model::Model& m, const model::Trace& trace,
                     const std::optional<model::Trace>& before);

// The same as text: one line per position with its log-probability (before and after).
void printAblation(const model::Model& m, const model::Trace& trace, const std::optional<model::Trace>& before);

}  // namespace headscope::cli
