#include "io/FolderTokenizer.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"
#include "text/Gpt2Tokenizer.h"

namespace headscope::io {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t kMaxTokenizerBytes = 64 << 20;

// A tokenizer.json read for its vocabulary only: every id shows as the token the file names
// (Llama's "▁" and GPT-2's "Ġ" as they are stored); encoding text is refused in one sentence.
class VocabularyTokenizer : public text::Tokenizer {
public:
    explicit VocabularyTokenizer(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {}

    std::vector<int> encode(std::string_view) const override {
        throw text::TokenizerError(
            "this model's tokenizer.json is read for its vocabulary only, so text cannot be encoded yet: give token ids");
    }
    std::string decode(const std::vector<int>& ids) const override {
        std::string text;
        for (int id : ids) text += displayText(id);
        return text;
    }
    std::string displayText(int id) const override {
        if (hasId(id) && !tokens_[id].empty()) return tokens_[id];
        std::string label = std::to_string(id);
        label.insert(label.begin(), '<');
        label.push_back('>');
        return label;
    }
    bool hasId(int id) const override { return id >= 0 && id < idLimit(); }
    int idLimit() const override { return static_cast<int>(tokens_.size()); }

private:
    std::vector<std::string> tokens_;
};

std::shared_ptr<const text::Tokenizer> readVocabulary(const std::string& path) {
    const auto fail = [&](const std::string& why) { throw IoError("cannot read tokenizer '" + path + "': " + why); };
    std::error_code error;
    if (fs::file_size(path, error) > kMaxTokenizerBytes) fail("it is larger than 64 MB");
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json file;
    try {
        file = parseJsonText(text, "it");
    } catch (const IoError& e) {
        fail(e.what());
    }
    if (!file.is_object() || !file.contains("model") || !file["model"].is_object() || !file["model"].contains("vocab") ||
        !file["model"]["vocab"].is_object())
        fail("it has no \"model\": {\"vocab\": {...}} object");
    std::vector<std::pair<std::string, long long>> entries;
    for (const auto& [token, id] : file["model"]["vocab"].items()) {
        if (!id.is_number_integer()) fail("the id of " + quote(token) + " is not a whole number");
        entries.emplace_back(token, id.get<long long>());
    }
    if (file.contains("added_tokens") && file["added_tokens"].is_array())
        for (const json& added : file["added_tokens"])
            if (added.is_object() && added.contains("id") && added["id"].is_number_integer() && added.contains("content") &&
                added["content"].is_string())
                entries.emplace_back(added["content"].get<std::string>(), added["id"].get<long long>());
    std::vector<std::string> tokens;
    for (const auto& [token, id] : entries) {
        if (id < 0 || id >= 10'000'000) fail("token " + quote(token) + " has the id " + std::to_string(id) + ", out of range");
        if (tokens.size() <= static_cast<std::size_t>(id)) tokens.resize(static_cast<std::size_t>(id) + 1);
        tokens[static_cast<std::size_t>(id)] = token;
    }
    return std::make_shared<const VocabularyTokenizer>(std::move(tokens));
}

}  // namespace

std::shared_ptr<const text::Tokenizer> loadFolderTokenizer(const std::string& directory, int vocab_size) {
    const fs::path dir(directory);
    std::error_code error;
    std::shared_ptr<const text::Tokenizer> tokenizer;
    std::string source;
    if (fs::exists(dir / "tokenizer.json", error)) {
        source = "tokenizer.json";
        tokenizer = readVocabulary((dir / source).string());
    } else if (fs::exists(dir / "vocab.json", error) && fs::exists(dir / "merges.txt", error)) {
        source = "vocab.json";
        try {
            tokenizer = std::make_shared<const text::Gpt2Tokenizer>(
                text::Gpt2Tokenizer::fromFiles((dir / "vocab.json").string(), (dir / "merges.txt").string()));
        } catch (const std::invalid_argument& e) {
            throw IoError("cannot read vocabulary '" + (dir / "vocab.json").string() + "': " + e.what());
        }
    } else {
        throw IoError("cannot open checkpoint '" + directory +
                      "': it has no tokenizer (tokenizer.json, or vocab.json and merges.txt)");
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
