#pragma once
// Small text helpers shared by messages in core/ and the command line.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace headscope {

// "a, b and c" with separator ", " and last_separator " and "; last_separator defaults
// to the separator.
inline std::string joinStrings(const std::vector<std::string>& items, std::string_view separator,
                               std::string_view last_separator = {}) {
    if (last_separator.empty()) last_separator = separator;
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) text += i + 1 == items.size() ? last_separator : separator;
        text += items[i];
    }
    return text;
}

// The middle value (mean of the two middle values for an even count); 0 when empty.
inline double median(std::vector<double> values) {
    if (values.empty()) return 0;
    const std::size_t n = values.size();
    std::nth_element(values.begin(), values.begin() + n / 2, values.end());
    const double upper = values[n / 2];
    if (n % 2) return upper;
    return 0.5 * (*std::max_element(values.begin(), values.begin() + n / 2) + upper);
}

}  // namespace headscope
