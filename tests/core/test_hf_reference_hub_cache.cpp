// A repo id in the Hugging Face cache (huggingface_hub's layout, files as symbolic links): opened
// from its snapshot with transformers' numbers, listed, and refused where it is absent. Skips,
// saying why, where ../shared is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "HfReferenceSupport.h"
#include "LoadError.h"
#include "TempDirTest.h"
#include "io/Checkpoint.h"
#include "io/HubCache.h"
#include "io/IoError.h"
#include "model/Forward.h"

namespace fs = std::filesystem;
using namespace headscope;
using namespace headscope::test_support::hf_reference;
using test_support::loadError;
using ::testing::HasSubstr;

namespace {

// A cache under `root` holding `repo_id` at refs/main = commit, its files links into blobs/.
void makeCache(const fs::path& root, const std::string& repo_id, const fs::path& folder, const std::string& commit) {
    std::string name = "models--" + repo_id;
    name.replace(name.find('/'), 1, "--");
    const fs::path repo = root / name;
    fs::create_directories(repo / "refs");
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / commit);
    std::ofstream(repo / "refs" / "main") << commit;
    int blob = 0;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().filename() == "ref.npz") continue;
        const std::string hash = "blob" + std::to_string(blob++);
        fs::copy_file(entry.path(), repo / "blobs" / hash);
        fs::create_symlink(fs::path("../../blobs") / hash, repo / "snapshots" / commit / entry.path().filename());
    }
}

class HubCacheTest : public TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        if (!fs::exists(kReference / "qwen3/ref.npz")) GTEST_SKIP() << "../shared/hf-reference is absent";
        const char* old = std::getenv("HF_HUB_CACHE");
        saved_ = old ? old : "";
        had_ = old != nullptr;
        ::setenv("HF_HUB_CACHE", dir_.c_str(), 1);
    }
    void TearDown() override {
        if (had_) {
            ::setenv("HF_HUB_CACHE", saved_.c_str(), 1);
        } else {
            ::unsetenv("HF_HUB_CACHE");
        }
        TempDirTest::TearDown();
    }
    std::string saved_;
    bool had_ = false;
};

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

}  // namespace

TEST_F(HubCacheTest, RepoIdOpensItsSnapshotAndGivesTransformersNumbers) {
    makeCache(dir_, "Qwen/Qwen3-tiny", kReference / "qwen3", kCommit);
    EXPECT_EQ(io::resolveModelPath("Qwen/Qwen3-tiny"), (dir_ / "models--Qwen--Qwen3-tiny/snapshots" / kCommit).string());
    EXPECT_EQ(io::resolveModelPath("Qwen/Qwen3-tiny", kCommit), io::resolveModelPath("Qwen/Qwen3-tiny"));
    expectAgrees("Qwen/Qwen3-tiny from the cache", compare("Qwen/Qwen3-tiny", kReference / "qwen3"), toleranceFor("qwen3"));
    const model::ModelPtr m = io::loadCheckpoint("Qwen/Qwen3-tiny");
    EXPECT_EQ(model::layerAnalysis(*m, model::runModel(*m, {1, 2, 3}), 0).model_name, "Qwen3 Qwen/Qwen3-tiny, layer 0 of 3");
    const std::vector<io::CachedModel> listed = io::cachedModels();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].repo_id, "Qwen/Qwen3-tiny");
    EXPECT_EQ(listed[0].model_type, "qwen3");
    EXPECT_EQ(listed[0].dtype, "float32");
    EXPECT_GT(listed[0].bytes, double(fs::file_size(kReference / "qwen3/model.safetensors")));
}

TEST_F(HubCacheTest, MissingRepoOrRevisionSaysWhereItLooked) {
    makeCache(dir_, "Qwen/Qwen3-tiny", kReference / "qwen3", kCommit);
    EXPECT_THAT(loadError("google/gemma-3-1b-it"),
                HasSubstr("is neither a folder nor a model in the Hugging Face cache (looked in '" +
                          (dir_ / "models--google--gemma-3-1b-it").string() + "'"));
    try {
        io::resolveModelPath("Qwen/Qwen3-tiny", "v2");
        ADD_FAILURE() << "an absent revision resolved";
    } catch (const io::IoError& e) {
        EXPECT_THAT(e.what(), HasSubstr("at revision 'v2': the Hugging Face cache has no"));
    }
}
