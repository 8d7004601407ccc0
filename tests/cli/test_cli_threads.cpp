// The numbers do not depend on how many threads compute them: every exported matrix, spectrum
// and rank is bit-for-bit the same with HEADSCOPE_THREADS 1, 2 and 4. The geometry is large
// enough that every parallel path runs (projections, heads, spectra factors and cores, logits
// spectra), and the weights are generated in parallel too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "CliRunner.h"

namespace fs = std::filesystem;

TEST(Threads, EveryExportedNumberIsIdenticalForOneTwoAndFourThreads) {
    // Grouped keys and values (4 groups for 8 heads) and a group per head take different
    // parallel paths through the spectra.
    for (const char* kv_heads : {"4", "8"}) {
        TempDir dir;
        const std::vector<std::string> common = {"export", "--d-model", "256", "--heads", "8", "--kv-heads", kv_heads,
                                                 "--seq-len", "200", "--mask", "causal", "--format", "npy"};
        for (const char* threads : {"1", "2", "4"}) {
            ::setenv("HEADSCOPE_THREADS", threads, 1);  // inherited by the child process
            std::vector<std::string> args = common;
            args.insert(args.end(), {"--out", (dir.path / threads).string()});
            const CliResult r = runCli(args);
            ASSERT_EQ(r.status, 0) << r.err;
        }
        ::unsetenv("HEADSCOPE_THREADS");
        int compared = 0;
        for (const auto& entry : fs::directory_iterator(dir.path / "1")) {
            const std::string name = entry.path().filename().string();
            const std::string one = readFile(entry.path());
            for (const char* threads : {"2", "4"})
                EXPECT_EQ(readFile(dir.path / threads / name), one)
                    << name << " differs with " << threads << " threads, " << kv_heads << " key-value groups";
            ++compared;
        }
        EXPECT_GT(compared, 40);  // X, Q, K, V, W_*, per-head logits, weights, W_QK, W_OV, spectra.csv, ranks.csv
    }
}
