#pragma once
// The tokenizer of a model folder that has none (what save_pretrained of a model alone writes):
// it cannot turn text into ids, so the model reads ids, typed as text ("17 4 9", spaces or
// commas between them) or given as ids (`model --ids 17,4,9`), and every token is labelled by its id.

#include "text/Tokenizer.h"

namespace headscope::text {

class IdsOnlyTokenizer : public Tokenizer {
public:
    explicit IdsOnlyTokenizer(int vocab_size) : vocab_size_(vocab_size) {}

    // The ids of "17 4 9"; TokenizerError for anything else ("this model has no tokenizer ...:
    // give token ids instead of text") or an id past the vocabulary.
    std::vector<int> encode(std::string_view utf8) const override;
    // The ids as decimal numbers, separated by spaces: "17 4 9".
    std::string decode(const std::vector<int>& ids) const override;
    std::string displayText(int id) const override;  // "17"
    bool hasId(int id) const override { return id >= 0 && id < vocab_size_; }
    int idLimit() const override { return vocab_size_; }
    bool encodesText() const override { return false; }

private:
    int vocab_size_;
};

}  // namespace headscope::text
