// libFuzzer target: GPT-2's byte-level BPE encoder (text/Gpt2Tokenizer.h encode) on
// arbitrary text, with a vocabulary of all 256 byte symbols and a few hundred merges of
// common English pairs. Valid UTF-8 must encode and decode back to the same bytes;
// anything else must be one TokenizerError.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "FuzzFile.h"
#include "text/Gpt2Tokenizer.h"

using headscope::text::Gpt2Tokenizer;

namespace {

const Gpt2Tokenizer& tokenizer() {
    static const Gpt2Tokenizer instance = [] {
        std::unordered_map<std::string, int> vocab;
        const auto& symbol = headscope::text::byteToUnicode();
        for (int b = 0; b < 256; ++b) vocab.emplace(symbol[b], b);
        std::vector<std::pair<std::string, std::string>> merges;
        const auto merge = [&](const std::string& left, const std::string& right) {
            if (!vocab.count(left) || !vocab.count(right) || vocab.count(left + right)) return;
            merges.emplace_back(left, right);
            vocab.emplace(left + right, static_cast<int>(vocab.size()));
        };
        const std::string space = symbol[' '];  // "Ġ"
        for (const char* word : {"the", "and", "ing", "tion", "he", "in", "er", "an", "re", "on", "at", "en", "es",
                                 "or", "te", "of", "ed", "is", "it", "al", "ar", "st", "to", "nt", "ng", "ha",
                                 "attention", "head", "query", "key", "value"}) {
            std::string built(1, word[0]);
            for (const char* c = word + 1; *c; ++c) {
                merge(built, std::string(1, *c));
                built += *c;
            }
            merge(space, built);
        }
        merge(space, space);
        return Gpt2Tokenizer(std::move(vocab), std::move(merges));
    }();
    return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const bool valid = !headscope::text::invalidUtf8Offset(text);
    try {
        const std::vector<int> ids = tokenizer().encode(text);
        if (!valid || tokenizer().decodeBytes(ids) != text) std::abort();
        if (tokenizer().decode(ids) != text) std::abort();
        std::string pieces;
        for (const std::string& piece : headscope::text::preTokenize(text)) pieces += piece;
        if (pieces != text) std::abort();
    } catch (const headscope::text::TokenizerError& error) {
        if (valid) std::abort();  // every byte symbol is in the vocabulary
        checkMessage(error.what());
    }
    return 0;
}
