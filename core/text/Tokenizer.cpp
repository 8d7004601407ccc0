#include "text/Tokenizer.h"

namespace headscope::text {

PairEncoding Tokenizer::encodePair(std::string_view, std::string_view) const {
    throw TokenizerError("this tokenizer has no template for a pair of sentences (its tokenizer.json declares none)");
}

}  // namespace headscope::text
