#include "io/FolderTokenizer.h"

#include <filesystem>

#include "io/IoError.h"
#include "io/Quote.h"
#include "text/Gpt2Tokenizer.h"
#include "text/IdsOnlyTokenizer.h"
#include "text/TokenizerJson.h"

namespace headscope::io {

namespace fs = std::filesystem;

std::shared_ptr<const text::Tokenizer> loadFolderTokenizer(const std::string& directory, int vocab_size) {
    const fs::path dir(directory);
    std::error_code error;
    std::shared_ptr<const text::Tokenizer> tokenizer;
    std::string source;
    if (fs::exists(dir / "tokenizer.json", error)) {
        source = "tokenizer.json";
        tokenizer = text::loadTokenizerJson((dir / source).string());
    } else if (fs::exists(dir / "vocab.json", error) && fs::exists(dir / "merges.txt", error)) {
        source = "vocab.json";
        try {
            tokenizer = std::make_shared<const text::Gpt2Tokenizer>(
                text::Gpt2Tokenizer::fromFiles((dir / "vocab.json").string(), (dir / "merges.txt").string()));
        } catch (const std::invalid_argument& e) {
            throw IoError("cannot read vocabulary '" + (dir / "vocab.json").string() + "': " + e.what());
        }
    } else {  // save_pretrained of a model alone: read from ids, labelled by them
        return std::make_shared<const text::IdsOnlyTokenizer>(vocab_size);
    }
    if (tokenizer->idLimit() > vocab_size) {
        const int id = tokenizer->idLimit() - 1;
        throw IoError("cannot open checkpoint '" + directory + "': " + source + " has token id " + std::to_string(id) +
                      " (" + quote(tokenizer->displayText(id)) + ") but config.json says vocab_size " +
                      std::to_string(vocab_size));
    }
    return tokenizer;
}

}  // namespace headscope::io
