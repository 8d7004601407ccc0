#include "text/TokenizerJsonReader.h"

#include <stdexcept>

#include "io/IoError.h"
#include "io/JsonText.h"
#include "io/Quote.h"

namespace headscope::text {

namespace {

using nlohmann::json;

// SAX events: model.vocab and model.merges are collected, everything else goes to a DOM builder.
class Reader {
public:
    Reader(TokenizerJsonDocument& document, long long max_id, std::size_t size)
        : document_(document), dom_(document.spec, true), max_id_(max_id), size_(size) {}

    bool null() { return mode_ == Mode::Normal ? dom_.null() : wrong("null"); }
    bool boolean(bool value) { return mode_ == Mode::Normal ? dom_.boolean(value) : wrong("true or false"); }
    bool number_float(double value, const std::string& text) {
        return mode_ == Mode::Normal ? dom_.number_float(value, text) : wrong("a fraction");
    }
    bool number_integer(json::number_integer_t value) {
        return mode_ == Mode::Vocab ? addToken(value) : mode_ == Mode::Normal ? dom_.number_integer(value) : wrong("a number");
    }
    bool number_unsigned(json::number_unsigned_t value) {
        if (mode_ == Mode::Vocab) return addToken(value > static_cast<json::number_unsigned_t>(max_id_) ? max_id_ + 1 : static_cast<long long>(value));
        return mode_ == Mode::Normal ? dom_.number_unsigned(value) : wrong("a number");
    }
    bool binary(json::binary_t& value) { return mode_ == Mode::Normal ? dom_.binary(value) : wrong("binary"); }
    bool string(std::string& value) {
        switch (mode_) {
            case Mode::Normal: return dom_.string(value);
            case Mode::Vocab: return wrong("a string");
            case Mode::MergePair:
                if (pair_.size() == 2) return wrong("a list of more than two");
                pair_.push_back(std::move(value));
                return true;
            case Mode::Merges: break;
        }
        const std::size_t space = value.find(' ');
        if (space == std::string::npos || value.find(' ', space + 1) != std::string::npos)
            throw std::invalid_argument(mergeName() + " " + io::quote(value) + " is not two symbols separated by a space");
        document_.merges.emplace_back(value.substr(0, space), value.substr(space + 1));
        return true;
    }
    bool key(std::string& name) {
        if (mode_ == Mode::Vocab) {
            token_ = std::move(name);
            return true;
        }
        if (open_.size() == 1) key1_ = name;
        if (open_.size() == 2) key2_ = name;
        return dom_.key(name);
    }
    bool start_object(std::size_t elements) {
        if (mode_ != Mode::Normal) return wrong("an object");
        if (inModel() && key2_ == "vocab") {
            mode_ = Mode::Vocab;
            document_.has_vocab = true;
            document_.vocab.clear();
            return true;
        }
        open_.push_back(true);
        return dom_.start_object(elements);
    }
    bool end_object() {
        if (mode_ == Mode::Vocab) {
            mode_ = Mode::Normal;
            return dom_.null();
        }
        open_.pop_back();
        return dom_.end_object();
    }
    bool start_array(std::size_t elements) {
        if (mode_ == Mode::Merges) {
            mode_ = Mode::MergePair;
            pair_.clear();
            return true;
        }
        if (mode_ != Mode::Normal) return wrong("a list");
        if (inModel() && key2_ == "merges") {
            mode_ = Mode::Merges;
            document_.has_merges = true;
            document_.merges.clear();
            return true;
        }
        open_.push_back(false);
        return dom_.start_array(elements);
    }
    bool end_array() {
        if (mode_ == Mode::MergePair) {
            if (pair_.size() != 2) return wrong("a list of fewer than two");
            document_.merges.emplace_back(std::move(pair_[0]), std::move(pair_[1]));
            mode_ = Mode::Merges;
            return true;
        }
        if (mode_ == Mode::Merges) {
            mode_ = Mode::Normal;
            return dom_.null();
        }
        open_.pop_back();
        return dom_.end_array();
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
        // The same words as io::parseJsonText.
        const auto* parse = dynamic_cast<const json::parse_error*>(&error);
        const std::size_t byte = parse ? parse->byte : 0;
        if (byte > size_) throw io::IoError("it is not valid JSON (it ends early, after " + std::to_string(size_) + " bytes)");
        throw io::IoError("it is not valid JSON (error at byte " + std::to_string(byte) + " of " + std::to_string(size_) + ")");
    }

private:
    enum class Mode { Normal, Vocab, Merges, MergePair };

    // Directly inside the root object's "model" object.
    bool inModel() const { return open_.size() == 2 && open_[0] && open_[1] && key1_ == "model"; }

    bool addToken(long long id) {
        if (id < 0 || id > max_id_)
            throw std::invalid_argument("the id " + std::to_string(id) + " of token " + io::quote(token_) + " is outside 0.." +
                                        std::to_string(max_id_));
        document_.vocab.insert_or_assign(token_, static_cast<int>(id));  // as a JSON object: the last one wins
        return true;
    }

    std::string mergeName() const { return "merge " + std::to_string(document_.merges.size()); }

    bool wrong(const char* what) {
        if (mode_ == Mode::Vocab)
            throw std::invalid_argument("the id of token " + io::quote(token_) + " is not a whole number (it is " + what + ")");
        throw std::invalid_argument(mergeName() + " is neither \"a b\" nor [\"a\", \"b\"]");
    }

    TokenizerJsonDocument& document_;
    nlohmann::detail::json_sax_dom_parser<json> dom_;
    long long max_id_;
    std::size_t size_;
    Mode mode_ = Mode::Normal;
    std::vector<bool> open_;  // the open containers: true for an object
    std::string key1_, key2_, token_;
    std::vector<std::string> pair_;
};

}  // namespace

TokenizerJsonDocument readTokenizerJson(std::string_view text, long long max_id) {
    io::checkJsonNesting(text, "it");
    TokenizerJsonDocument document;
    Reader reader(document, max_id, text.size());
    try {
        json::sax_parse(text.begin(), text.end(), &reader);
    } catch (const json::exception&) {
        throw io::IoError("it is not valid JSON");
    }
    return document;
}

}  // namespace headscope::text
