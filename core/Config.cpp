#include "Config.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "Input.h"
#include "Strings.h"

namespace headscope {

namespace {

std::string joinInts(const std::vector<int>& values, const char* last_sep) {
    std::vector<std::string> text;
    for (int value : values) text.push_back(std::to_string(value));
    return joinStrings(text, ", ", last_sep);
}

// Head counts (<= kMaxHeads) that divide n.
std::vector<int> divisorsUpTo(int n, int limit) {
    std::vector<int> out;
    for (int d = 1; d <= std::min(n, limit); ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

void checkRange(std::vector<std::string>& problems, const char* name, int value, int lo, int hi) {
    if (value < lo || value > hi)
        problems.push_back(std::string(name) + " " + std::to_string(value) + " is out of range: choose " +
                           std::to_string(lo) + " to " + std::to_string(hi) + ".");
}

}  // namespace

const char* toString(MaskKind mask) { return mask == MaskKind::Causal ? "causal" : "none"; }
const char* toString(InitKind init) {
    switch (init) {
        case InitKind::Normal: return "normal";
        case InitKind::Identity: return "identity";
        case InitKind::Xavier: break;
    }
    return "xavier";
}

std::optional<MaskKind> maskKindFromString(const std::string& name) {
    if (name == "none") return MaskKind::None;
    if (name == "causal") return MaskKind::Causal;
    return std::nullopt;
}

std::optional<InitKind> initKindFromString(const std::string& name) {
    if (name == "xavier") return InitKind::Xavier;
    if (name == "normal") return InitKind::Normal;
    if (name == "identity") return InitKind::Identity;
    return std::nullopt;
}

long long Config::parameterCount() const {
    const long long d = d_model, h = heads, kv = kvHeads(), dk = headDimK(), dv = headDimV();
    const long long weights = d * h * dk + d * kv * dk + d * kv * dv + h * dv * d;
    const long long biases = bias ? h * dk + kv * dk + kv * dv + d : 0;
    return weights + biases;
}

double estimatedBytes(const Config& c, int n_q, int n_kv) {
    const double d = c.d_model, h = c.heads, kv = c.kvHeads(), dk = c.headDimK(), dv = c.headDimV();
    const double weights = double(c.parameterCount());
    const double activations = (n_q + n_kv) * d + n_q * h * dk + n_kv * kv * (dk + dv) +
                               2 * n_q * h * dv + n_q * d;
    const double per_head = 2.0 * h * n_q * n_kv;    // logits and weights of every head
    const double merged_qk = 2.0 * d * d;            // one W_QK at a time, float and copy
    const double spectra = 2.0 * 2.0 * d * std::max(dk, dv);  // double QR factors, 2 threads
    return 4.0 * (weights + activations + per_head + merged_qk) + 8.0 * spectra;
}

bool Config::sameWeights(const Config& o) const {
    return d_model == o.d_model && heads == o.heads && headDimK() == o.headDimK() && headDimV() == o.headDimV() &&
           kvHeads() == o.kvHeads() && bias == o.bias && seed == o.seed && init == o.init &&
           (init != InitKind::Normal || init_sigma == o.init_sigma);
}

bool Config::sameInput(const Config& o) const {
    return text == o.text && (!text.empty() || seq_len == o.seq_len) && seed == o.seed && d_model == o.d_model &&
           source_text == o.source_text;
}

double estimatedMultiplyAdds(const Config& c, int n_q, int n_kv) {
    const double d = c.d_model, h = c.heads, kv = c.kvHeads(), dk = c.headDimK(), dv = c.headDimV();
    const double projections = n_q * d * h * dk + n_kv * d * kv * (dk + dv) + n_q * h * dv * d;
    const double attention = h * double(n_q) * n_kv * (dk + dv);
    const double spectra = (2 * h * 2 * d * dk * dk + 2 * kv * 2 * d * std::max(dk, dv) * std::max(dk, dv)) +
                           2 * h * std::pow(std::min(std::max(dk, dv), d), 3);
    return projections + attention + spectra;
}

std::vector<std::string> Config::validate(Tokens tokens) const {
    std::vector<std::string> problems;
    checkRange(problems, "d_model", d_model, 1, Limits::kMaxDModel);
    checkRange(problems, "heads", heads, 1, Limits::kMaxHeads);
    const bool geometry_ok = problems.empty();

    if (geometry_ok && (d_k <= 0 || d_v <= 0) && d_model % heads != 0) {
        const auto ok = divisorsUpTo(d_model, Limits::kMaxHeads);
        problems.push_back("d_model " + std::to_string(d_model) + " is not divisible by " +
                           std::to_string(heads) + " heads; set d_k and d_v explicitly or choose " +
                           joinInts(ok, " or ") + " heads.");
    }
    if (d_k != 0) checkRange(problems, "d_k", d_k, 1, Limits::kMaxHeadDim);
    if (d_v != 0) checkRange(problems, "d_v", d_v, 1, Limits::kMaxHeadDim);
    if (kv_heads != 0) {
        if (kv_heads < 0 || kv_heads > heads) {
            problems.push_back("kv_heads " + std::to_string(kv_heads) + " must be between 1 and heads (" +
                               std::to_string(heads) + ").");
        } else if (geometry_ok && heads % kv_heads != 0) {
            problems.push_back("kv_heads " + std::to_string(kv_heads) + " must divide heads " +
                               std::to_string(heads) + " (each key/value head serves the same number of "
                               "query heads): choose " + joinInts(divisorsUpTo(heads, heads), " or ") + ".");
        }
    }

    int n_q = 0;
    if (text.size() > Limits::kMaxTextBytes) {
        problems.push_back("The text is longer than 1 MiB; shorten it.");
    } else if (tokens == Tokens::OfModel) {  // counted by the model's tokenizer; a model reads no random tokens
        if (text.empty()) problems.push_back("The text has no tokens: type some words.");
    } else if (!text.empty()) {
        n_q = static_cast<int>(tokenize(text).size());
        if (n_q == 0) problems.push_back("The text has no tokens: type some words.");
    } else if (seq_len <= 0) {
        problems.push_back("Give a text or a sequence length of at least 1 token.");
    } else {
        n_q = seq_len;
    }
    if (n_q > Limits::kMaxSeqLen)
        problems.push_back("The input has " + std::to_string(n_q) + " tokens; at most " +
                           std::to_string(Limits::kMaxSeqLen) + " are supported.");

    int n_kv = n_q;
    if (source_text.size() > Limits::kMaxTextBytes) {
        problems.push_back("The source text is longer than 1 MiB; shorten it.");
    } else if (isCross() && tokens == Tokens::Demo) {
        n_kv = static_cast<int>(tokenize(source_text).size());
        if (n_kv == 0) problems.push_back("The source text has no tokens: type some words or clear it for self-attention.");
        if (n_kv > Limits::kMaxSeqLen)
            problems.push_back("The source text has " + std::to_string(n_kv) + " tokens; at most " +
                               std::to_string(Limits::kMaxSeqLen) + " are supported.");
    }
    for (int key : padded_keys) {
        if (n_kv > 0 && (key < 0 || key >= n_kv)) {
            problems.push_back("Padded key " + std::to_string(key) + " does not exist: keys are numbered 0 to " +
                               std::to_string(n_kv - 1) + ".");
            break;
        }
    }

    // Bounded so that logits / T and the weights stay far from float overflow.
    if (!(temperature >= 1e-3 && temperature <= 1e3))
        problems.push_back("The temperature must be between 0.001 and 1000 (1 leaves the logits unchanged).");
    if (!(init_sigma > 0 && init_sigma <= 10))
        problems.push_back("The standard deviation of the normal initialiser must be above 0 and at most 10.");
    if (init == InitKind::Identity && heads > 0) {
        const int q_width = heads * headDimK(), v_width = heads * headDimV();
        if (q_width != d_model || v_width != d_model || kvHeads() != heads)
            problems.push_back("The identity initialiser needs square projections: heads x d_k = heads x d_v = d_model "
                               "(now " + std::to_string(q_width) + " and " + std::to_string(v_width) + " against " +
                               std::to_string(d_model) + ") and as many key/value heads as heads; lock d_k and d_v "
                               "or choose the Xavier initialiser.");
    }
    if (!std::isfinite(rank_rtol) || rank_rtol < 0 || rank_rtol >= 1)
        problems.push_back("The rank tolerance must be 0 (NumPy's default) or a fraction below 1.");

    if (problems.empty()) {
        const double bytes = estimatedBytes(*this, n_q, n_kv);
        if (bytes > Limits::kMaxBytes)
            problems.push_back("This configuration needs about " + gib(bytes) + " of memory, more than the " +
                               gib(Limits::kMaxBytes) + " HeadScope allows; use fewer tokens, heads or a smaller d_model.");
        const double work = estimatedMultiplyAdds(*this, n_q, n_kv);
        if (problems.empty() && work > Limits::kMaxMultiplyAdds) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "about %.0f billion multiply-adds (the limit is %.0f billion)",
                          work / 1e9, Limits::kMaxMultiplyAdds / 1e9);
            problems.push_back("d_model " + std::to_string(d_model) + " with " + std::to_string(heads) +
                               " head(s) of d_k " + std::to_string(headDimK()) + " and " + std::to_string(n_q) +
                               " tokens needs " + buf + ", too slow to follow live; use more heads (a smaller "
                               "d_k), fewer tokens or a smaller d_model.");
        }
    }
    return problems;
}

}  // namespace headscope
