// tokenizer.json pre-tokenizers: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace,
// WhitespaceSplit, Punctuation, BertPreTokenizer; null. Each splits every piece it is given
// into smaller pieces, as the Hugging Face tokenizers library's NormalizedString::split does.
#include <memory>
#include <stdexcept>

#include <utf8proc.h>

#include "io/Quote.h"
#include "text/Gpt2Tokenizer.h"
#include "text/Regex.h"
#include "text/TokenizerParts.h"
#include "text/Utf8.h"

namespace headscope::text {

namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior behaviorOf(const nlohmann::json& spec, Behavior fallback) {
    const std::string name = stringField(spec, "behavior", "");
    if (name.empty()) return fallback;
    if (name == "Removed") return Behavior::Removed;
    if (name == "Isolated") return Behavior::Isolated;
    if (name == "MergedWithPrevious") return Behavior::MergedWithPrevious;
    if (name == "MergedWithNext") return Behavior::MergedWithNext;
    if (name == "Contiguous") return Behavior::Contiguous;
    throw std::invalid_argument("the split behavior " + io::quote(name) +
                                " is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

// text split at the matches: the spans (begin, end, is_match) cover the text in order.
struct Span {
    std::size_t begin, end;
    bool match;
};

std::vector<Span> cover(const std::string& text, const std::vector<std::pair<std::size_t, std::size_t>>& matches, bool invert) {
    std::vector<Span> spans;
    std::size_t at = 0;
    for (const auto& [begin, end] : matches) {
        if (at < begin) spans.push_back({at, begin, invert});
        spans.push_back({begin, end, !invert});
        at = end;
    }
    if (at < text.size()) spans.push_back({at, text.size(), invert});
    return spans;
}

// One piece split at its matches with the behavior; empty pieces dropped.
void splitPiece(const Piece& piece, const std::vector<Span>& spans, Behavior behavior, std::vector<Piece>& out) {
    std::vector<std::pair<std::size_t, std::size_t>> kept;  // [begin, end) of each new piece
    if (behavior == Behavior::MergedWithNext) {
        bool previous_match = false;
        for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
            if (it->match && !previous_match && !kept.empty()) kept.back().first = it->begin;
            else kept.emplace_back(it->begin, it->end);
            previous_match = it->match;
        }
        std::reverse(kept.begin(), kept.end());
    } else {
        bool previous_match = false;
        for (const Span& span : spans) {
            if (behavior == Behavior::Removed && span.match) continue;
            const bool merge = !kept.empty() && ((behavior == Behavior::MergedWithPrevious && span.match && !previous_match) ||
                                                 (behavior == Behavior::Contiguous && span.match && previous_match));
            if (merge) kept.back().second = span.end;
            else kept.emplace_back(span.begin, span.end);
            previous_match = span.match;
        }
    }
    for (const auto& [begin, end] : kept)
        if (end > begin) out.push_back({piece.text.substr(begin, end - begin), piece.at_start && begin == 0});
}

// Every character for which keep(c) holds is a match of its own.
template <class Predicate>
std::vector<std::pair<std::size_t, std::size_t>> characterMatches(const std::string& text, Predicate keep) {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(text, i));
        if (keep(utf8CodePoint(text, i, length))) matches.emplace_back(i, i + length);
        i += length;
    }
    return matches;
}

bool isNumeric(char32_t c) {
    const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    return category == UTF8PROC_CATEGORY_ND || category == UTF8PROC_CATEGORY_NL || category == UTF8PROC_CATEGORY_NO;
}

bool isPunctuation(char32_t c) {
    if (c < 0x80) return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
    const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    return category >= UTF8PROC_CATEGORY_PC && category <= UTF8PROC_CATEGORY_PO;
}

// A pre-tokenizer that splits each piece at the matches finder(text) gives.
PreTokenizer splitter(std::function<std::vector<std::pair<std::size_t, std::size_t>>(const std::string&)> finder,
                      Behavior behavior, bool invert) {
    return [finder = std::move(finder), behavior, invert](std::vector<Piece> pieces) {
        std::vector<Piece> out;
        for (const Piece& piece : pieces) splitPiece(piece, cover(piece.text, finder(piece.text), invert), behavior, out);
        return out;
    };
}

PreTokenizer byteLevel(const nlohmann::json& spec) {
    const bool add_prefix_space = boolField(spec, "add_prefix_space", true);
    const bool use_regex = boolField(spec, "use_regex", true);
    return [add_prefix_space, use_regex](std::vector<Piece> pieces) {
        std::vector<Piece> out;
        for (Piece& piece : pieces) {
            if (add_prefix_space && piece.text.rfind(' ', 0) != 0) piece.text = " " + piece.text;  // (not insert: GCC 12 warns falsely)
            if (!use_regex) {
                out.push_back(std::move(piece));
                continue;
            }
            bool first = piece.at_start;
            for (std::string& part : preTokenize(piece.text)) {  // GPT-2's pattern, as the library's ByteLevel
                out.push_back({std::move(part), first});
                first = false;
            }
        }
        for (Piece& piece : out) {  // bytes -> the printable characters that stand for them
            std::string mapped;
            for (const char b : piece.text) mapped += byteToUnicode()[static_cast<unsigned char>(b)];
            piece.text = std::move(mapped);
        }
        return out;
    };
}

PreTokenizer metaspace(const nlohmann::json& spec) {
    const std::string replacement = stringField(spec, "replacement", "\u2581");
    if (replacement.empty() || utf8SequenceLength(replacement, 0) != replacement.size())
        throw std::invalid_argument("the Metaspace replacement " + io::quote(replacement) + " is not one character");
    std::string scheme = stringField(spec, "prepend_scheme", "");
    if (scheme.empty()) scheme = boolField(spec, "add_prefix_space", true) ? "always" : "never";
    if (scheme != "always" && scheme != "first" && scheme != "never")
        throw std::invalid_argument("the Metaspace prepend_scheme " + io::quote(scheme) + " is not always, first or never");
    const bool split = boolField(spec, "split", true);
    return [replacement, scheme, split](std::vector<Piece> pieces) {
        std::vector<Piece> out;
        for (Piece& piece : pieces) {
            std::string text;
            for (const char c : piece.text) {
                if (c == ' ') text += replacement;
                else text += c;
            }
            const bool starts = text.rfind(replacement, 0) == 0;
            if (!starts && (scheme == "always" || (scheme == "first" && piece.at_start))) text.insert(0, replacement);
            Piece replaced{std::move(text), piece.at_start};
            if (!split) {
                out.push_back(std::move(replaced));
                continue;
            }
            std::vector<std::pair<std::size_t, std::size_t>> matches;
            for (std::size_t at = 0; (at = replaced.text.find(replacement, at)) != std::string::npos; at += replacement.size())
                matches.emplace_back(at, at + replacement.size());
            splitPiece(replaced, cover(replaced.text, matches, false), Behavior::MergedWithNext, out);
        }
        return out;
    };
}

}  // namespace

PreTokenizer makePreTokenizer(const nlohmann::json& spec) {
    if (spec.is_null()) return {};
    const std::string type = typeOf(spec, "pre_tokenizer");
    if (type == "Sequence") {
        const auto it = spec.find("pretokenizers");
        if (it == spec.end() || !it->is_array())
            throw std::invalid_argument("the pre_tokenizer Sequence has no \"pretokenizers\" list");
        std::vector<PreTokenizer> steps;
        for (const auto& step : *it)
            if (PreTokenizer pre = makePreTokenizer(step)) steps.push_back(std::move(pre));
        return [steps](std::vector<Piece> pieces) {
            for (const auto& step : steps) pieces = step(std::move(pieces));
            return pieces;
        };
    }
    if (type == "Split") return splitter(patternFinder(spec), behaviorOf(spec, Behavior::Isolated), boolField(spec, "invert", false));
    if (type == "ByteLevel") return byteLevel(spec);
    if (type == "Metaspace") return metaspace(spec);
    if (type == "Digits") {
        const auto digits = [](const std::string& text) { return characterMatches(text, isNumeric); };
        return splitter(digits, boolField(spec, "individual_digits", false) ? Behavior::Isolated : Behavior::Contiguous, false);
    }
    if (type == "Whitespace") {
        const auto words = std::make_shared<const Regex>(R"(\w+|[^\w\s]+)");
        return splitter([words](const std::string& text) { return words->findAll(text); }, Behavior::Removed, true);
    }
    const auto whitespace = [](const std::string& text) { return characterMatches(text, isWhitespace); };
    const auto punctuation = [](const std::string& text) { return characterMatches(text, isPunctuation); };
    if (type == "WhitespaceSplit") return splitter(whitespace, Behavior::Removed, false);
    if (type == "Punctuation") return splitter(punctuation, behaviorOf(spec, Behavior::Isolated), false);
    if (type == "BertPreTokenizer") {
        const PreTokenizer words = splitter(whitespace, Behavior::Removed, false);
        const PreTokenizer marks = splitter(punctuation, Behavior::Isolated, false);
        return [words, marks](std::vector<Piece> pieces) { return marks(words(std::move(pieces))); };
    }
    throw std::invalid_argument("the pre_tokenizer type " + io::quote(type) +
                                " is not supported (supported: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace, "
                                "WhitespaceSplit, Punctuation, BertPreTokenizer)");
}

}  // namespace headscope::text
