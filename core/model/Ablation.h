#pragma once
// Knocking heads out (ablation): a set of (layer, head) whose outputs are replaced, in every
// block's attention Results, before the block adds them to the residual stream:
//   zero: out_i = 0 (n, d_v)
//   mean: out_i = 1 mean_rows(out_i): every position gets the head's mean output over the
//         input's positions (n, d_v)
// then concat = [out_0 ... out_{h-1}] (n, h*d_v) and output = concat W_O + b_O (n, d_model) are
// recomputed, so every later layer, the logits and the next-token list follow. The head's
// logits and weights stay as computed: its pattern is still there, what it writes is not.
// It acts on a block's Results only, so it serves every model family alike.

#include <string>
#include <vector>

#include "Engine.h"
#include "Weights.h"
#include "model/AttentionWeights.h"

namespace headscope::model {

enum class AblationMode { Zero, Mean };

const char* toString(AblationMode mode);  // "zero", "mean"

struct HeadRef {
    int layer = 0;
    int head = 0;
    auto operator<=>(const HeadRef&) const = default;
};

std::string toString(const HeadRef& head);  // "1.2"

struct Ablation {
    std::vector<HeadRef> heads;  // kept sorted, no duplicates
    AblationMode mode = AblationMode::Zero;

    bool empty() const { return heads.empty(); }
    bool contains(int layer, int head) const;
    void add(HeadRef head);     // no-op when already off
    void remove(HeadRef head);  // no-op when not off
    bool operator==(const Ablation&) const = default;
};

// std::invalid_argument (one sentence) when a head names a layer or head the model lacks.
void checkAblation(const Ablation& ablation, int n_layer, int n_head);

// Replaces the outputs of the heads of `layer` that `ablation` knocks out, and recomputes
// results.concat and results.output from them. Heads of other layers are ignored.
void ablateLayer(const Ablation& ablation, int layer, const Weights& weights, Results& results);
// The same for a loaded model's block (W_O as the checkpoint stores it).
void ablateLayer(const Ablation& ablation, int layer, const AttentionWeights& weights, Results& results);

// "1.2,0.3" -> heads (spaces allowed); std::invalid_argument naming the part that is not L.H.
std::vector<HeadRef> parseHeadList(const std::string& text);
// "1.2, 1.3,,0.1" -> {"1.2", "1.3", "0.1"}: the comma-separated parts, trimmed, empty ones dropped.
std::vector<std::string> splitHeadList(const std::string& text);

}  // namespace headscope::model
