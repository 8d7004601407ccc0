#pragma once
// Every knob of one multi-head attention layer and of its input.
// validate() is the single place where a configuration is checked; nothing
// downstream re-checks, so every consumer calls it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headscope {

enum class MaskKind { None, Causal };
// Identity: W_Q = W_K = W_V = W_O = I, zero biases (needs h*d_k = h*d_v = d_model and
// kv_heads = heads): no projection at one head; each head reads its own d_model/h slice at h.
enum class InitKind { Xavier, Normal, Identity };

struct Config {
    // Layer geometry. 0 for d_k / d_v / kv_heads means "derive": d_model / heads, heads.
    int d_model = 64;
    int heads = 8;
    int d_k = 0;
    int d_v = 0;
    int kv_heads = 0;
    bool bias = true;

    // Input: text (tokenised into words and punctuation) or, when text is empty,
    // seq_len seeded random tokens. A non-empty source_text makes this cross-attention:
    // queries from text, keys and values from source_text.
    std::string text = "The animal didn't cross the street because it was too tired";
    int seq_len = 0;
    std::string source_text;

    // Masks: causal and/or key padding (key positions every query must ignore).
    MaskKind mask = MaskKind::None;
    std::vector<int> padded_keys;

    // Logit scale 1/sqrt(d_k) on/off, and softmax temperature (logits / T).
    bool scale = true;
    double temperature = 1.0;

    // Weights.
    std::uint64_t seed = 0;
    InitKind init = InitKind::Xavier;
    double init_sigma = 0.02;  // standard deviation for InitKind::Normal

    // Numerical rank: 0 means NumPy's default tolerance sigma_max * max(rows, cols) * eps;
    // otherwise singular values <= rank_rtol * sigma_max count as zero.
    double rank_rtol = 0.0;

    // Derived geometry (valid only when validate() is empty).
    int headDimK() const { return d_k > 0 ? d_k : (heads > 0 ? d_model / heads : 0); }
    int headDimV() const { return d_v > 0 ? d_v : (heads > 0 ? d_model / heads : 0); }
    int kvHeads() const { return kv_heads > 0 ? kv_heads : heads; }
    bool isCross() const { return !source_text.empty(); }
    // Trainable parameters of the layer, the closed form (valid configs only):
    // d_model (h d_k + kv d_k + kv d_v) + h d_v d_model, plus h d_k + kv d_k + kv d_v + d_model
    // biases. Weights::parameterCount() counts the same from the matrices.
    long long parameterCount() const;

    // Who counts the input's tokens: the demo's word tokenizer, or a loaded model's (which
    // checks the length and the padded keys itself once it has the ids, a sentence pair's
    // template included, so none of that is counted here in the demo's words).
    enum class Tokens { Demo, OfModel };

    // Every problem with this configuration, in words a student understands.
    // Empty means valid.
    std::vector<std::string> validate(Tokens tokens = Tokens::Demo) const;

    // True when makeWeights() gives both configs the same numbers (geometry, biases,
    // initialiser and seed agree), so weights and their spectra can be reused.
    bool sameWeights(const Config& other) const;
    // Whether makeInput gives other's embeddings too (same text or random sequence, seed,
    // d_model and source), so a change of temperature or mask can keep the input.
    bool sameInput(const Config& other) const;

    bool operator==(const Config&) const = default;
};

// Hard limits, shared by validation, the CLI and the GUI's controls.
struct Limits {
    static constexpr int kMaxDModel = 4096;
    static constexpr int kMaxHeads = 128;
    static constexpr int kMaxHeadDim = 4096;
    static constexpr int kMaxSeqLen = 8192;
    static constexpr std::size_t kMaxTextBytes = 1 << 20;
    // Memory the weights, activations and per-head matrices may take together.
    static constexpr double kMaxBytes = 4.0 * 1024 * 1024 * 1024;
    // Multiply-adds one analysis (forward pass and spectra) may take: a few seconds here.
    static constexpr double kMaxMultiplyAdds = 2e10;
};

// Estimated peak bytes for one forward pass with per-head logits and weights kept.
double estimatedBytes(const Config& config, int n_q, int n_kv);

// Estimated multiply-adds of the forward pass and of every head's W_QK / W_OV spectrum
// (thin QR of 2h + 2kv factors of d_model x d_k: about 2 d_model d_k^2 each).
double estimatedMultiplyAdds(const Config& config, int n_q, int n_kv);

const char* toString(MaskKind mask);
const char* toString(InitKind init);
// "none", "causal" -> the mask; anything else -> nullopt. The one parser of mask names
// for the command line and session files.
std::optional<MaskKind> maskKindFromString(const std::string& name);
// "xavier", "normal", "identity" -> the initialiser; anything else -> nullopt.
std::optional<InitKind> initKindFromString(const std::string& name);

}  // namespace headscope
