// libFuzzer target: the word tokenizer (core/Input.h tokenize) on arbitrary bytes.
// Every token is non-empty, and the tokens are exactly the text's non-space bytes, in
// order: nothing is dropped, duplicated or invented.
#include <string>

#include "Input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string joined;
    for (const std::string& token : headscope::tokenize(text)) {
        if (token.empty()) std::abort();
        joined += token;
    }
    std::string expected;
    for (const char c : text)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') expected += c;
    if (joined != expected) std::abort();
    return 0;
}
