// tokenizer.json decoders (ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip,
// Sequence; null) and post-processors (TemplateProcessing, ByteLevel, RobertaProcessing,
// BertProcessing, Sequence; null), as the Hugging Face tokenizers library applies them.
#include <stdexcept>
#include <unordered_map>

#include "io/Quote.h"
#include "text/Gpt2Tokenizer.h"
#include "text/TokenizerParts.h"
#include "text/Utf8.h"

namespace headscope::text {

namespace {

using Tokens = std::vector<std::string>;

// A decoder that changes each token on its own, for decode and display alike.
Decoder perToken(std::function<std::string(std::string)> change) {
    return {[change](Tokens tokens) {
                for (std::string& token : tokens) token = change(std::move(token));
                return tokens;
            },
            change};
}

// Byte-level characters -> the bytes they stand for; a token with any other character is
// its own UTF-8 (an added token such as "<|endoftext|>" is both).
std::string byteLevelBytes(const std::string& token) {
    static const std::unordered_map<std::string, char> byte_of = [] {
        std::unordered_map<std::string, char> map;
        for (int b = 0; b < 256; ++b) map.emplace(byteToUnicode()[b], static_cast<char>(b));
        return map;
    }();
    std::string bytes;
    for (std::size_t i = 0; i < token.size();) {
        const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(token, i));
        const auto it = byte_of.find(token.substr(i, length));
        if (it == byte_of.end()) return token;
        bytes += it->second;
        i += length;
    }
    return bytes;
}

// "<0xNN>" -> the byte, or -1.
int fallbackByte(const std::string& token) {
    if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
    const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    const int high = hex(token[3]), low = hex(token[4]);
    return high < 0 || low < 0 ? -1 : high * 16 + low;
}

Decoder byteFallback() {
    const auto decode = [](Tokens tokens) {
        Tokens out;
        std::string bytes;  // consecutive byte tokens, converted together
        const auto flush = [&] {
            if (bytes.empty()) return;
            if (invalidUtf8Offset(bytes)) out.insert(out.end(), bytes.size(), "\xEF\xBF\xBD");  // one U+FFFD per byte
            else out.push_back(bytes);
            bytes.clear();
        };
        for (std::string& token : tokens) {
            if (const int b = fallbackByte(token); b >= 0) {
                bytes += static_cast<char>(b);
            } else {
                flush();
                out.push_back(std::move(token));
            }
        }
        flush();
        return out;
    };
    const auto display = [](std::string token) {
        const int b = fallbackByte(token);
        return b >= 0 ? std::string(1, static_cast<char>(b)) : token;
    };
    return {decode, display};
}

Decoder strip(const nlohmann::json& spec) {
    const std::string content = stringField(spec, "content", " ");
    const auto count = [&](const char* key) {
        const auto it = spec.find(key);
        if (it == spec.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 1'000'000)
            throw std::invalid_argument(std::string("the Strip decoder's \"") + key + "\" is not a small whole number");
        return static_cast<std::size_t>(it->get<std::uint64_t>());
    };
    const std::size_t start = count("start"), stop = count("stop");
    if (content.empty() || utf8SequenceLength(content, 0) != content.size())
        throw std::invalid_argument("the Strip decoder's content " + io::quote(content) + " is not one character");
    const auto decode = [content, start, stop](Tokens tokens) {
        for (std::string& token : tokens) {
            std::size_t begin = 0, end = token.size();
            for (std::size_t k = 0; k < start && token.compare(begin, content.size(), content) == 0; ++k) begin += content.size();
            for (std::size_t k = 0; k < stop && end >= begin + content.size() &&
                                    token.compare(end - content.size(), content.size(), content) == 0; ++k)
                end -= content.size();
            token = token.substr(begin, end - begin);
        }
        return tokens;
    };
    return {decode, [](std::string token) { return token; }};  // a token shown whole
}

Decoder metaspaceDecoder(const nlohmann::json& spec) {
    const std::string replacement = stringField(spec, "replacement", "\u2581");
    std::string scheme = stringField(spec, "prepend_scheme", "");
    if (scheme.empty()) scheme = boolField(spec, "add_prefix_space", true) ? "always" : "never";
    const bool drop_first = scheme != "never";
    const auto replace = [replacement](const std::string& token, bool drop) {
        std::string out;
        for (std::size_t at = 0;;) {
            const std::size_t found = replacement.empty() ? std::string::npos : token.find(replacement, at);
            out.append(token, at, found == std::string::npos ? std::string::npos : found - at);
            if (found == std::string::npos) return out;
            if (!drop) out += ' ';
            at = found + replacement.size();
        }
    };
    const auto decode = [replace, drop_first](Tokens tokens) {
        for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = replace(tokens[i], i == 0 && drop_first);
        return tokens;
    };
    return {decode, [replace](std::string token) { return replace(token, false); }};
}

// The library's WordPiece decoder (decoders/wordpiece.rs): a token after the first loses its
// "##" or gains a space before it; with cleanup, the spaces English puts no space before go.
Decoder wordPiece(const nlohmann::json& spec) {
    const std::string prefix = stringField(spec, "prefix", "##");
    const bool cleanup = boolField(spec, "cleanup", true);
    const auto tidy = [](std::string token) {
        static const std::pair<const char*, const char*> kReplacements[] = {
            {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
            {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
        for (const auto& [from, to] : kReplacements) {
            const std::string f = from, t = to;
            for (std::size_t at = 0; (at = token.find(f, at)) != std::string::npos; at += t.size()) token.replace(at, f.size(), t);
        }
        return token;
    };
    return {[prefix, cleanup, tidy](Tokens tokens) {
                for (std::size_t i = 0; i < tokens.size(); ++i) {
                    std::string& token = tokens[i];
                    if (i != 0) {
                        if (!prefix.empty() && token.rfind(prefix, 0) == 0) token.erase(0, prefix.size());
                        else token = " " + token;
                    }
                    if (cleanup) token = tidy(std::move(token));
                }
                return tokens;
            },
            [](std::string token) { return token; }};
}

}  // namespace

Decoder makeDecoder(const nlohmann::json& spec) {
    if (spec.is_null()) return {};
    const std::string type = typeOf(spec, "decoder");
    if (type == "Sequence") {
        const auto it = spec.find("decoders");
        if (it == spec.end() || !it->is_array()) throw std::invalid_argument("the decoder Sequence has no \"decoders\" list");
        std::vector<Decoder> steps;
        for (const auto& step : *it)
            if (Decoder decoder = makeDecoder(step); decoder.decode) steps.push_back(std::move(decoder));
        return {[steps](Tokens tokens) {
                    for (const auto& step : steps) tokens = step.decode(std::move(tokens));
                    return tokens;
                },
                [steps](std::string token) {
                    for (const auto& step : steps) token = step.display(std::move(token));
                    return token;
                }};
    }
    if (type == "ByteLevel") {
        return {[](Tokens tokens) {
                    std::string bytes;
                    for (const std::string& token : tokens) bytes += byteLevelBytes(token);
                    return Tokens{replaceInvalidLossy(bytes)};
                },
                byteLevelBytes};
    }
    if (type == "Metaspace") return metaspaceDecoder(spec);
    if (type == "Replace") return perToken(makeReplace(spec));
    if (type == "ByteFallback") return byteFallback();
    if (type == "Fuse") {
        return {[](Tokens tokens) {
                    std::string all;
                    for (const std::string& token : tokens) all += token;
                    return Tokens{all};
                },
                [](std::string token) { return token; }};
    }
    if (type == "Strip") return strip(spec);
    if (type == "WordPiece") return wordPiece(spec);
    throw std::invalid_argument("the decoder type " + io::quote(type) +
                                " is not supported (supported: Sequence, ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, "
                                "WordPiece)");
}

PostProcessor makePostProcessor(const nlohmann::json& spec, const std::function<int(const std::string&)>& token_id,
                                const std::function<bool(int)>& has_id) {
    const auto checked = [&](int id, const std::string& what) {
        if (!has_id(id)) throw std::invalid_argument("the post-processor adds id " + std::to_string(id) + " (" + what + "), which has no token");
        return id;
    };
    if (spec.is_null()) return {};
    const std::string type = typeOf(spec, "post_processor");
    if (type == "ByteLevel") return {};  // offsets only: the ids are unchanged
    if (type == "Sequence") {
        const auto it = spec.find("processors");
        if (it == spec.end() || !it->is_array()) throw std::invalid_argument("the post_processor Sequence has no \"processors\" list");
        std::vector<PostProcessor> steps;
        for (const auto& step : *it)
            if (PostProcessor post = makePostProcessor(step, token_id, has_id)) steps.push_back(std::move(post));
        return [steps](std::vector<int> ids) {
            for (const auto& step : steps) ids = step(std::move(ids));
            return ids;
        };
    }
    if (type == "RobertaProcessing" || type == "BertProcessing") {
        const auto idOf = [&](const char* key) {
            const auto it = spec.find(key);
            if (it == spec.end() || !it->is_array() || it->size() != 2 || !(*it)[1].is_number_integer())
                throw std::invalid_argument("the " + type + "'s \"" + key + "\" is not [token, id]");
            return checked((*it)[1].get<int>(), key);
        };
        const int cls = idOf("cls"), sep = idOf("sep");
        return [cls, sep](std::vector<int> ids) {
            ids.insert(ids.begin(), cls);
            ids.push_back(sep);
            return ids;
        };
    }
    if (type != "TemplateProcessing")
        throw std::invalid_argument("the post_processor type " + io::quote(type) +
                                    " is not supported (supported: TemplateProcessing, ByteLevel, RobertaProcessing, "
                                    "BertProcessing, Sequence)");
    // special_tokens: {"<s>": {"id": "<s>", "ids": [1], ...}}; single: [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}]
    std::unordered_map<std::string, std::vector<int>> special;
    if (const auto it = spec.find("special_tokens"); it != spec.end() && it->is_object())
        for (const auto& [name, entry] : it->items()) {
            const auto ids = entry.find("ids");
            if (!entry.is_object() || ids == entry.end() || !ids->is_array())
                throw std::invalid_argument("the template's special token " + io::quote(name) + " has no \"ids\" list");
            std::vector<int>& list = special[name];
            for (const auto& id : *ids) {
                if (!id.is_number_integer()) throw std::invalid_argument("the template's special token " + io::quote(name) + " has an id that is not a whole number");
                list.push_back(checked(id.get<int>(), io::quote(name)));
            }
        }
    const auto single = spec.find("single");
    if (single == spec.end() || !single->is_array()) throw std::invalid_argument("the TemplateProcessing has no \"single\" list");
    struct Item {
        bool sequence;
        std::vector<int> ids;
    };
    std::vector<Item> items;
    for (const auto& item : *single) {
        if (item.contains("Sequence")) {
            items.push_back({true, {}});
            continue;
        }
        const auto token = item.find("SpecialToken");
        if (token == item.end() || !token->is_object() || !token->contains("id") || !(*token)["id"].is_string())
            throw std::invalid_argument("an item of the template is neither a Sequence nor a SpecialToken");
        const std::string name = (*token)["id"].get<std::string>();
        const auto found = special.find(name);
        items.push_back({false, found != special.end() ? found->second : std::vector<int>{token_id(name)}});
    }
    return [items](std::vector<int> ids) {
        std::vector<int> out;
        for (const Item& item : items) {
            const std::vector<int>& part = item.sequence ? ids : item.ids;
            out.insert(out.end(), part.begin(), part.end());
        }
        return out;
    };
}

PairProcessor makePairProcessor(const nlohmann::json& spec, const std::function<int(const std::string&)>& token_id,
                                const std::function<bool(int)>& has_id) {
    if (spec.is_null()) return {};
    const std::string type = typeOf(spec, "post_processor");
    if (type == "Sequence") {  // the one step that joins a pair (ByteLevel's does not)
        const auto it = spec.find("processors");
        if (it == spec.end() || !it->is_array()) return {};
        for (const auto& step : *it)
            if (PairProcessor pair = makePairProcessor(step, token_id, has_id)) return pair;
        return {};
    }
    const auto idOf = [&](const char* key) {
        const auto it = spec.find(key);
        if (it == spec.end() || !it->is_array() || it->size() != 2 || !(*it)[1].is_number_integer() || !has_id((*it)[1].get<int>()))
            throw std::invalid_argument("the " + type + "'s \"" + key + "\" is not [token, id]");
        return (*it)[1].get<int>();
    };
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        const int cls = idOf("cls"), sep = idOf("sep");
        const bool roberta = type == "RobertaProcessing";
        return [cls, sep, roberta](std::vector<int> a, std::vector<int> b) {
            PairEncoding p;
            p.ids.push_back(cls);
            p.ids.insert(p.ids.end(), a.begin(), a.end());
            p.ids.push_back(sep);
            if (roberta) p.ids.push_back(sep);
            p.types.assign(p.ids.size(), 0);
            p.second = static_cast<int>(p.ids.size());
            p.ids.insert(p.ids.end(), b.begin(), b.end());
            p.ids.push_back(sep);
            p.types.resize(p.ids.size(), roberta ? 0 : 1);
            return p;
        };
    }
    if (type != "TemplateProcessing") return {};
    const auto pair = spec.find("pair");
    if (pair == spec.end() || !pair->is_array()) return {};
    std::unordered_map<std::string, std::vector<int>> special;
    if (const auto it = spec.find("special_tokens"); it != spec.end() && it->is_object())
        for (const auto& [name, entry] : it->items())
            if (entry.is_object() && entry.contains("ids") && entry["ids"].is_array())
                for (const auto& id : entry["ids"])
                    if (id.is_number_integer() && has_id(id.get<int>())) special[name].push_back(id.get<int>());
    struct Item {
        int sequence;  // 0: A, 1: B, -1: special ids
        std::vector<int> ids;
        int type;
    };
    std::vector<Item> items;
    for (const auto& item : *pair) {
        const bool is_sequence = item.contains("Sequence");
        const auto& body = is_sequence ? item["Sequence"] : item.contains("SpecialToken") ? item["SpecialToken"] : item;
        if (!body.is_object() || !body.contains("id") || !body["id"].is_string())
            throw std::invalid_argument("an item of the pair template is neither a Sequence nor a SpecialToken");
        const std::string id = body["id"].get<std::string>();
        const int type_id = body.contains("type_id") && body["type_id"].is_number_integer() ? body["type_id"].get<int>() : 0;
        if (is_sequence) {
            items.push_back({id == "B" ? 1 : 0, {}, type_id});
        } else {
            const auto found = special.find(id);
            items.push_back({-1, found != special.end() ? found->second : std::vector<int>{token_id(id)}, type_id});
        }
    }
    return [items](std::vector<int> a, std::vector<int> b) {
        PairEncoding p;
        p.second = -1;
        for (const Item& item : items) {
            const std::vector<int>& part = item.sequence == 0 ? a : item.sequence == 1 ? b : item.ids;
            if (item.sequence == 1 && p.second < 0) p.second = static_cast<int>(p.ids.size());
            p.ids.insert(p.ids.end(), part.begin(), part.end());
            p.types.resize(p.ids.size(), item.type);
        }
        if (p.second < 0) p.second = static_cast<int>(p.ids.size());
        return p;
    };
}

}  // namespace headscope::text
