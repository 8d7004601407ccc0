#include "text/TokenizerJson.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "io/IoError.h"
#include "io/Quote.h"
#include "text/AddedTokens.h"
#include "text/Bpe.h"
#include "text/SmallFile.h"
#include "text/TokenizerJsonReader.h"
#include "text/TokenizerParts.h"
#include "text/Utf8.h"
#include "text/WordPiece.h"

namespace headscope::text {

namespace {

constexpr std::uintmax_t kMaxFileBytes = 256u << 20;

using nlohmann::json;

class JsonTokenizer : public Tokenizer {
public:
    JsonTokenizer(std::unique_ptr<const SubwordModel> model, std::vector<AddedToken> added, Normalizer normalizer, PreTokenizer pre_tokenizer,
                  Decoder decoder, PostProcessor post_processor, PairProcessor pair_processor)
        : model_(std::move(model)), normalizer_(std::move(normalizer)), pre_tokenizer_(std::move(pre_tokenizer)),
          decoder_(std::move(decoder)), post_processor_(std::move(post_processor)), pair_processor_(std::move(pair_processor)) {
        std::vector<AddedToken> raw, normalized;
        std::vector<std::string> raw_patterns, normalized_patterns;
        limit_ = model_->idLimit();
        for (AddedToken& token : added) {
            limit_ = std::max(limit_, token.id + 1);
            added_by_id_[token.id] = token.content;
            if (token.normalized) {
                normalized_patterns.push_back(normalizer_ ? normalizer_(token.content) : token.content);
                normalized.push_back(std::move(token));
            } else {
                raw_patterns.push_back(token.content);
                raw.push_back(std::move(token));
            }
        }
        raw_ = AddedTokenMatcher(std::move(raw), std::move(raw_patterns));
        normalized_ = AddedTokenMatcher(std::move(normalized), std::move(normalized_patterns));
    }

    std::vector<int> encode(std::string_view utf8) const override {
        std::vector<int> ids = encodeAlone(utf8);
        return post_processor_ ? post_processor_(std::move(ids)) : ids;
    }

    PairEncoding encodePair(std::string_view first, std::string_view second) const override {
        if (!pair_processor_) return Tokenizer::encodePair(first, second);  // says it has no template
        return pair_processor_(encodeAlone(first), encodeAlone(second));
    }

    // The text's ids before the post-processor adds its special tokens.
    std::vector<int> encodeAlone(std::string_view utf8) const {
        requireValidUtf8(utf8);
        std::vector<int> ids;
        for (const Segment& segment : raw_.split(utf8)) {
            if (segment.id) {
                ids.push_back(*segment.id);
                continue;
            }
            const std::string text = normalizer_ ? normalizer_(segment.text) : segment.text;
            for (const Segment& part : normalized_.split(text)) {
                if (part.id) {
                    ids.push_back(*part.id);
                    continue;
                }
                std::vector<Piece> pieces{{part.text, segment.offset == 0 && part.offset == 0}};
                if (pre_tokenizer_) pieces = pre_tokenizer_(std::move(pieces));
                for (const Piece& piece : pieces) {
                    const std::vector<int> piece_ids = model_->tokenize(piece.text);
                    ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
                }
            }
        }
        return ids;
    }

    std::string decode(const std::vector<int>& ids) const override {
        std::vector<std::string> tokens;
        tokens.reserve(ids.size());
        for (const int id : ids) tokens.push_back(tokenText(id));
        std::string text;
        if (decoder_.decode) {
            for (const std::string& part : decoder_.decode(std::move(tokens))) text += part;
        } else {  // the library joins the tokens with spaces
            for (std::size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
        }
        return replaceInvalidLossy(text);
    }

    std::string displayText(int id) const override {
        const std::string& token = tokenText(id);
        if (added_by_id_.count(id)) return displayBytes(token);  // "<s>", "<|endoftext|>" as written
        return displayBytes(decoder_.display ? decoder_.display(token) : token);
    }

    bool hasId(int id) const override { return added_by_id_.count(id) > 0 || model_->tokenOf(id) != nullptr; }
    int idLimit() const override { return limit_; }

private:
    const std::string& tokenText(int id) const {
        if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) return it->second;
        if (const std::string* token = model_->tokenOf(id)) return *token;
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    }

    std::unique_ptr<const SubwordModel> model_;
    Normalizer normalizer_;
    PreTokenizer pre_tokenizer_;
    Decoder decoder_;
    PostProcessor post_processor_;
    PairProcessor pair_processor_;
    AddedTokenMatcher raw_, normalized_;
    std::unordered_map<int, std::string> added_by_id_;
    int limit_ = 0;
};

const json& member(const json& object, const char* key) {
    static const json null_value;
    const auto it = object.find(key);
    return it == object.end() ? null_value : *it;
}

// what() names the token for a message, built only on failure.
template <class What>
int idValue(const json& value, const What& what) {
    if (!value.is_number_integer()) throw std::invalid_argument("the id of " + what() + " is not a whole number");
    const auto id = value.get<long long>();
    if (id < 0 || id > kMaxTokenId)
        throw std::invalid_argument("the id " + std::to_string(id) + " of " + what() + " is outside 0.." + std::to_string(kMaxTokenId));
    return static_cast<int>(id);
}

// BERT's WordPiece: its vocabulary, unknown token, "##" and the longest word it splits.
std::unique_ptr<SubwordModel> makeWordPiece(TokenizerJsonDocument& document, const json& spec) {
    if (!document.has_vocab || document.vocab.empty())
        throw std::invalid_argument("the WordPiece model has no \"vocab\" of token -> id");
    WordPieceModel::Options options;
    options.unk_token = stringField(spec, "unk_token", "[UNK]");
    options.continuing_subword_prefix = stringField(spec, "continuing_subword_prefix", "##");
    if (const json& longest = member(spec, "max_input_chars_per_word"); !longest.is_null()) {
        if (!longest.is_number_integer() || longest.get<long long>() < 1 || longest.get<long long>() > 1'000'000)
            throw std::invalid_argument("the WordPiece model's \"max_input_chars_per_word\" is not a whole number from 1 to 1000000");
        options.max_input_chars_per_word = longest.get<int>();
    }
    return std::make_unique<WordPieceModel>(std::move(document.vocab), std::move(options));
}

std::unique_ptr<SubwordModel> makeModel(TokenizerJsonDocument& document) {
    const json& spec = member(document.spec, "model");
    if (!spec.is_object()) throw std::invalid_argument("it has no \"model\" object");
    const std::string type = spec.contains("type") ? typeOf(spec, "model") : "BPE";
    if (type == "WordPiece") return makeWordPiece(document, spec);
    if (type != "BPE")
        throw std::invalid_argument("the model type " + io::quote(type) + " is not supported (supported: BPE, WordPiece)");
    if (const json& dropout = member(spec, "dropout"); !dropout.is_null() && !(dropout.is_number() && dropout.get<double>() == 0.0))
        throw std::invalid_argument("the BPE model has dropout, which makes encoding random (supported: dropout null)");
    // vocab and merges were read by the parser itself (TokenizerJsonReader.h); where they were
    // not an object and a list, the JSON value says what they are.
    if (!document.has_vocab || document.vocab.empty())
        throw std::invalid_argument("the BPE model has no \"vocab\" of token -> id");
    if (!document.has_merges && !member(spec, "merges").is_null())
        throw std::invalid_argument("the BPE model's \"merges\" is not a list");
    BpeModel::Options options;
    if (const json& unk = member(spec, "unk_token"); !unk.is_null()) {
        if (!unk.is_string()) throw std::invalid_argument("the BPE model's \"unk_token\" is not a string");
        options.unk_token = unk.get<std::string>();
    }
    options.fuse_unk = boolField(spec, "fuse_unk", false);
    options.byte_fallback = boolField(spec, "byte_fallback", false);
    options.ignore_merges = boolField(spec, "ignore_merges", false);
    options.continuing_subword_prefix = stringField(spec, "continuing_subword_prefix", "");
    options.end_of_word_suffix = stringField(spec, "end_of_word_suffix", "");
    return std::make_unique<BpeModel>(std::move(document.vocab), document.merges, std::move(options));
}

std::vector<AddedToken> addedTokens(const json& list) {
    std::vector<AddedToken> tokens;
    if (list.is_null()) return tokens;
    if (!list.is_array()) throw std::invalid_argument("its \"added_tokens\" is not a list");
    for (const json& entry : list) {
        if (!entry.is_object() || !member(entry, "content").is_string())
            throw std::invalid_argument("added token " + std::to_string(tokens.size()) + " has no \"content\" string");
        AddedToken token;
        token.content = entry["content"].get<std::string>();
        token.id = idValue(member(entry, "id"), [&] { return "added token " + io::quote(token.content); });
        if (invalidUtf8Offset(token.content)) throw std::invalid_argument("added token " + std::to_string(token.id) + " is not valid UTF-8");
        token.single_word = boolField(entry, "single_word", false);
        token.lstrip = boolField(entry, "lstrip", false);
        token.rstrip = boolField(entry, "rstrip", false);
        token.special = boolField(entry, "special", false);
        token.normalized = boolField(entry, "normalized", !token.special);
        if (!token.content.empty()) tokens.push_back(std::move(token));
    }
    return tokens;
}

}  // namespace

std::shared_ptr<const Tokenizer> loadTokenizerJson(const std::string& path) {
    return loadTokenizerJsonText(readSmallFile(path, kMaxFileBytes, "tokenizer"), path);
}

std::shared_ptr<const Tokenizer> loadTokenizerJsonText(const std::string& text, const std::string& path) {
    const auto fail = [&](const std::string& why) -> void {
        throw io::IoError("cannot read tokenizer '" + path + "': " + why);
    };
    try {
        TokenizerJsonDocument document = readTokenizerJson(text, kMaxTokenId);
        const json& spec = document.spec;
        if (!spec.is_object()) throw std::invalid_argument("it is not a JSON object");
        std::unique_ptr<SubwordModel> model = makeModel(document);
        std::vector<AddedToken> added = addedTokens(member(spec, "added_tokens"));
        // As the library (AddedVocabulary::add_tokens): a token the model has takes the model's
        // id; another takes the next id after the vocabulary and the added tokens so far. The
        // file's ids agree in every real file; where they do not, the library's win.
        long long next_id = static_cast<long long>(model->vocab().size());
        for (AddedToken& token : added) {
            if (const auto it = model->vocab().find(token.content); it != model->vocab().end()) {
                token.id = it->second;
            } else {
                if (next_id > kMaxTokenId) throw std::invalid_argument("it has too many added tokens");
                token.id = static_cast<int>(next_id);
            }
            next_id = std::max(next_id, static_cast<long long>(token.id) + 1);
        }
        std::unordered_map<std::string, int> added_ids;
        for (const AddedToken& token : added) added_ids.emplace(token.content, token.id);
        const auto token_id = [&](const std::string& content) {
            if (const auto it = added_ids.find(content); it != added_ids.end()) return it->second;
            if (const auto it = model->vocab().find(content); it != model->vocab().end()) return it->second;
            throw std::invalid_argument("the post-processor's token " + io::quote(content) + " is not in the vocabulary");
        };
        Normalizer normalizer = makeNormalizer(member(spec, "normalizer"));
        PreTokenizer pre_tokenizer = makePreTokenizer(member(spec, "pre_tokenizer"));
        Decoder decoder = makeDecoder(member(spec, "decoder"));
        const auto has_id = [&](int id) {
            return model->tokenOf(id) != nullptr ||
                   std::any_of(added.begin(), added.end(), [id](const AddedToken& token) { return token.id == id; });
        };
        PostProcessor post_processor = makePostProcessor(member(spec, "post_processor"), token_id, has_id);
        PairProcessor pair_processor = makePairProcessor(member(spec, "post_processor"), token_id, has_id);
        return std::make_shared<JsonTokenizer>(std::move(model), std::move(added), std::move(normalizer),
                                               std::move(pre_tokenizer), std::move(decoder), std::move(post_processor),
                                               std::move(pair_processor));
    } catch (const io::IoError& error) {  // not JSON
        fail(error.what());
    } catch (const std::invalid_argument& error) {
        fail(error.what());
    } catch (const json::exception&) {
        fail("a field has the wrong JSON type");
    } catch (const TokenizerError& error) {  // normalising an added token with a pattern that fails
        fail(error.what());
    }
    return nullptr;  // not reached
}

}  // namespace headscope::text
