#include "text/IdsOnlyTokenizer.h"

#include <cctype>

namespace headscope::text {

std::vector<int> IdsOnlyTokenizer::encode(std::string_view utf8) const {
    // Decimal ids separated by spaces or commas: "17 4 9" (what decode() writes).
    std::vector<int> ids;
    std::size_t at = 0;
    const auto isGap = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
    while (at < utf8.size()) {
        if (isGap(utf8[at])) {
            ++at;
            continue;
        }
        long long id = 0;
        std::size_t digits = 0;
        for (; at < utf8.size() && !isGap(utf8[at]); ++at, ++digits) {
            if (!std::isdigit(static_cast<unsigned char>(utf8[at])) || digits >= 9)
                throw TokenizerError("this model has no tokenizer (its folder has no tokenizer.json, nor vocab.json "
                                     "and merges.txt): give token ids instead of text, e.g. 17 4 9");
            id = id * 10 + (utf8[at] - '0');
        }
        if (id >= vocab_size_)
            throw TokenizerError("token id " + std::to_string(id) + " is outside this model's vocabulary 0.." +
                                 std::to_string(vocab_size_ - 1));
        ids.push_back(static_cast<int>(id));
    }
    return ids;
}

std::string IdsOnlyTokenizer::decode(const std::vector<int>& ids) const {
    std::string text;
    for (int id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
    return text;
}

std::string IdsOnlyTokenizer::displayText(int id) const { return std::to_string(id); }

}  // namespace headscope::text
