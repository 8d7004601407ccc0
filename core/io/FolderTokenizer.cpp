#include "io/FolderTokenizer.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/IoError.h"
#include "io/Quote.h"
#include "text/Gpt2Tokenizer.h"
#include "text/IdsOnlyTokenizer.h"
#include "text/TokenizerJson.h"

namespace headscope::io {

namespace fs = std::filesystem;

namespace {

// BERT's tokenizer as transformers' BertTokenizerFast builds it from vocab.txt (one token a line,
// its id the line's number) and tokenizer_config.json (do_lower_case true, tokenize_chinese_chars
// true, strip_accents null, the special tokens' names): BertNormalizer, BertPreTokenizer,
// WordPiece ("##", [UNK], 100 characters), [CLS] A [SEP], the WordPiece decoder.
std::shared_ptr<const text::Tokenizer> wordPieceFromVocabTxt(const fs::path& dir) {
    const std::string path = (dir / "vocab.txt").string();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("cannot read vocabulary '" + path + "'");
    nlohmann::json vocab = nlohmann::json::object();
    std::string line;
    for (int id = 0; std::getline(in, line); ++id) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        if (id > 10'000'000) throw IoError("cannot read vocabulary '" + path + "': it has over 10,000,000 lines");
        vocab[line] = id;
    }
    nlohmann::json settings = nlohmann::json::object();
    if (const fs::path config = dir / "tokenizer_config.json"; fs::exists(config)) {
        try {
            settings = nlohmann::json::parse(std::ifstream(config));
        } catch (const nlohmann::json::exception&) {
            throw IoError("cannot read '" + config.string() + "': it is not JSON");
        }
        if (!settings.is_object()) throw IoError("cannot read '" + config.string() + "': it is not a JSON object");
    }
    const auto name = [&](const char* key, const char* fallback) {
        const auto it = settings.find(key);
        return it != settings.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
    };
    const auto flag = [&](const char* key, bool fallback) {
        const auto it = settings.find(key);
        return it != settings.end() && it->is_boolean() ? it->get<bool>() : fallback;
    };
    const std::string unk = name("unk_token", "[UNK]"), cls = name("cls_token", "[CLS]"), sep = name("sep_token", "[SEP]");
    nlohmann::json added = nlohmann::json::array();
    for (const std::string& special : {name("pad_token", "[PAD]"), unk, cls, sep, name("mask_token", "[MASK]")})
        if (vocab.contains(special))
            added.push_back({{"id", vocab[special]}, {"content", special}, {"single_word", false}, {"lstrip", false},
                             {"rstrip", false}, {"normalized", false}, {"special", true}});
    nlohmann::json normalizer = {{"type", "BertNormalizer"}, {"clean_text", true},
                                 {"handle_chinese_chars", flag("tokenize_chinese_chars", true)},
                                 {"lowercase", flag("do_lower_case", true)}};
    normalizer["strip_accents"] = settings.contains("strip_accents") && settings["strip_accents"].is_boolean()
                                      ? settings["strip_accents"] : nlohmann::json(nullptr);
    const nlohmann::json spec = {
        {"added_tokens", added},
        {"normalizer", normalizer},
        {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
        {"post_processor", {{"type", "BertProcessing"}, {"cls", {cls, vocab.value(cls, 0)}}, {"sep", {sep, vocab.value(sep, 0)}}}},
        {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
        {"model", {{"type", "WordPiece"}, {"unk_token", unk}, {"continuing_subword_prefix", "##"},
                   {"max_input_chars_per_word", 100}, {"vocab", vocab}}}};
    if (!vocab.contains(cls) || !vocab.contains(sep))
        throw IoError("cannot read vocabulary '" + path + "': it has no " + quote(vocab.contains(cls) ? sep : cls) +
                      " token for the [CLS] text [SEP] template");
    return text::loadTokenizerJsonText(spec.dump(), path);
}

}  // namespace

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
    } else if (fs::exists(dir / "vocab.txt", error)) {  // an older BERT folder: WordPiece from vocab.txt alone
        source = "vocab.txt";
        tokenizer = wordPieceFromVocabTxt(dir);
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
