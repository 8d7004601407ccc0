#include "text/Regex.h"

#include <stdexcept>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "text/Tokenizer.h"
#include "text/Utf8.h"

namespace headscope::text {

namespace {
constexpr std::uint32_t kMatchLimit = 10'000'000;  // backtracking steps per match attempt
constexpr std::uint32_t kDepthLimit = 10'000;
}  // namespace

struct Regex::Code {
    pcre2_code* code = nullptr;
    pcre2_match_context* context = nullptr;
    ~Code() {
        pcre2_match_context_free(context);
        pcre2_code_free(code);
    }
};

Regex::Regex(const std::string& pattern) : pattern_(pattern) {
    auto compiled = std::make_shared<Code>();
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                   &error_code, &error_offset, nullptr);
    if (!compiled->code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error_code, message, sizeof message);
        throw std::invalid_argument(std::string(reinterpret_cast<const char*>(message)) + " at offset " +
                                    std::to_string(error_offset));
    }
    pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);  // optional speed-up; the interpreter is the fallback
    compiled->context = pcre2_match_context_create(nullptr);
    if (!compiled->context) throw std::bad_alloc();
    pcre2_set_match_limit(compiled->context, kMatchLimit);
    pcre2_set_depth_limit(compiled->context, kDepthLimit);
    code_ = std::move(compiled);
}

std::vector<std::pair<std::size_t, std::size_t>> Regex::findAll(std::string_view utf8) const {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(code_->code, nullptr), &pcre2_match_data_free);
    if (!match) throw std::bad_alloc();
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    const auto subject = reinterpret_cast<PCRE2_SPTR>(utf8.data());
    PCRE2_SIZE start = 0;
    while (start <= utf8.size()) {
        const int rc = pcre2_match(code_->code, subject, utf8.size(), start, PCRE2_NO_UTF_CHECK, match.get(), code_->context);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw TokenizerError("the tokenizer's pattern failed on this text (" +
                                 std::string(reinterpret_cast<const char*>(message)) + ")");
        }
        const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
        if (span[1] <= span[0]) {  // empty match: step over one character
            if (span[0] >= utf8.size()) break;
            const std::size_t length = utf8SequenceLength(utf8, span[0]);
            start = span[0] + (length == 0 ? 1 : length);
            continue;
        }
        spans.emplace_back(span[0], span[1]);
        start = span[1];
    }
    return spans;
}

}  // namespace headscope::text
