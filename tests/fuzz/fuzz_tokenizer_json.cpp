// libFuzzer target: tokenizer.json (text/TokenizerJson.h loadTokenizerJson) on arbitrary bytes.
// A file that does not load gives one IoError of one bounded line; a tokenizer that loads must
// encode a few texts (or refuse one with a TokenizerError of one line), every id it gives must
// have a token below idLimit(), and decode and displayText must give valid UTF-8; a sentence pair
// (encodePair) has one token type per id and its second sentence starting inside the ids.
#include <cstdlib>

#include "FuzzFile.h"
#include "io/IoError.h"
#include "text/TokenizerJson.h"
#include "text/Utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FuzzFile file;
    file.write(data, size);
    try {
        const auto tokenizer = headscope::text::loadTokenizerJson(file.path());
        for (const char* text : {"abc abc", "H\xc3\xa9llo 1 <s>", "  \n\t x</s>", "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\xa4\x97", ""}) {
            try {
                const std::vector<int> ids = tokenizer->encode(text);
                for (const int id : ids) {
                    if (!tokenizer->hasId(id) || id >= tokenizer->idLimit()) std::abort();
                    if (headscope::text::invalidUtf8Offset(tokenizer->displayText(id))) std::abort();
                }
                if (headscope::text::invalidUtf8Offset(tokenizer->decode(ids))) std::abort();
            } catch (const headscope::text::TokenizerError& error) {
                checkMessage(error.what());
            }
        }
        try {
            const headscope::text::PairEncoding pair = tokenizer->encodePair("abc, d", "\xc3\xa9 [MASK] x");
            if (pair.types.size() != pair.ids.size() || pair.second < 0 || pair.second > int(pair.ids.size())) std::abort();
            for (const int id : pair.ids)
                if (!tokenizer->hasId(id)) std::abort();
        } catch (const headscope::text::TokenizerError& error) {
            checkMessage(error.what());
        }
    } catch (const headscope::io::IoError& error) {
        checkMessage(error.what());
    }
    return 0;
}
