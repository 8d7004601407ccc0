// libFuzzer target: a GPT-2 tokenizer's vocab.json and merges.txt (text/Gpt2Tokenizer.h
// fromFiles) on arbitrary bytes: the input is split at its first NUL byte into the two
// files. A tokenizer that loads must encode and decode a few texts without crashing.
#include <cstring>

#include "FuzzFile.h"
#include "io/IoError.h"
#include "text/Gpt2Tokenizer.h"

using headscope::text::Gpt2Tokenizer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile vocab, merges;
    const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
    const std::size_t split = nul ? static_cast<std::size_t>(nul - data) : size;
    vocab.write(data, split);
    merges.write(nul ? nul + 1 : data + size, nul ? size - split - 1 : 0);
    try {
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::fromFiles(vocab.path(), merges.path());
        for (const char* text : {"abc", "Hello world", "a b\n c's", "\xc3\xa9t\xc3\xa9"}) {
            try {
                const std::vector<int> ids = tokenizer.encode(text);
                if (tokenizer.decodeBytes(ids) != text) std::abort();
                for (int id : ids) (void)tokenizer.displayText(id);
            } catch (const headscope::text::TokenizerError& error) {
                checkMessage(error.what());
            }
        }
    } catch (const headscope::io::IoError& error) {
        checkMessage(error.what());
    }
    return 0;
}
