#include "io/HubCache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/CheckpointFiles.h"
#include "io/IoError.h"
#include "io/Quote.h"

namespace headscope::io {

namespace fs = std::filesystem;

namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

// "Qwen/Qwen3-0.6B" -> "models--Qwen--Qwen3-0.6B" (huggingface_hub repo_folder_name)
std::string repoFolder(const std::string& repo_id) {
    std::string folder = "models--";
    for (char ch : repo_id) folder += ch == '/' ? std::string("--") : std::string(1, ch);
    return folder;
}

bool isCommit(const std::string& text) {
    return text.size() == 40 && std::all_of(text.begin(), text.end(), [](char ch) {
               return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
           });
}

// The commit refs/<name> holds, or "" when there is no such ref.
std::string readRef(const fs::path& repo, const std::string& name) {
    std::ifstream in(repo / "refs" / name);
    std::string commit;
    if (!(in >> commit) || !isCommit(commit)) return {};
    return commit;
}

}  // namespace

std::string hubCacheDirectory() {
    if (const std::string hub = environment("HF_HUB_CACHE"); !hub.empty()) return hub;
    if (const std::string home = environment("HF_HOME"); !home.empty()) return (fs::path(home) / "hub").string();
    const std::string user = environment("HOME");
    return (fs::path(user.empty() ? "/" : user) / ".cache" / "huggingface" / "hub").string();
}

bool looksLikeRepoId(const std::string& text) {
    std::error_code error;
    if (text.empty() || fs::exists(text, error)) return false;
    if (std::count(text.begin(), text.end(), '/') != 1 || text.front() == '/' || text.back() == '/' || text.front() == '.')
        return false;
    return std::all_of(text.begin(), text.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
               ch == '_' || ch == '.' || ch == '/';
    });
}

std::string resolveModelPath(const std::string& path, const std::string& revision) {
    std::error_code error;
    if (fs::exists(path, error)) {
        if (!revision.empty())
            throw IoError("--revision " + quote(revision, 60) + " names a version of a repo id in the Hugging Face cache, but " +
                          quotePath(path) + " is a folder on disk");
        return path;
    }
    if (!looksLikeRepoId(path)) return path;
    const fs::path repo = fs::path(hubCacheDirectory()) / repoFolder(path);
    if (!fs::is_directory(repo, error))
        throw IoError("cannot open " + quote(path, 80) + ": it is neither a folder nor a model in the Hugging Face cache (looked in " +
                      quotePath(repo.string()) + "; download it with `huggingface-cli download " + path + "`)");
    const std::string wanted = revision.empty() ? "main" : revision;
    std::string commit = isCommit(wanted) ? wanted : readRef(repo, wanted);
    if (commit.empty())
        throw IoError("cannot open " + quote(path, 80) + " at revision " + quote(wanted, 60) + ": the Hugging Face cache has no " +
                      quotePath((repo / "refs" / wanted).string()));
    const fs::path snapshot = repo / "snapshots" / commit;
    if (!fs::is_directory(snapshot, error))
        throw IoError("cannot open " + quote(path, 80) + ": its revision " + quote(wanted, 60) + " is commit " + commit +
                      ", whose snapshot " + quotePath(snapshot.string()) + " is not in the cache");
    return snapshot.string();
}

std::vector<CachedModel> cachedModels() {
    std::vector<CachedModel> models;
    std::error_code error;
    for (fs::directory_iterator it(hubCacheDirectory(), error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("models--", 0) != 0) continue;
        std::string repo_id = name.substr(8);
        const std::size_t dash = repo_id.find("--");
        if (dash != std::string::npos) repo_id.replace(dash, 2, "/");
        fs::path snapshot;
        if (const std::string commit = readRef(it->path(), "main"); !commit.empty()) snapshot = it->path() / "snapshots" / commit;
        if (snapshot.empty() || !fs::exists(snapshot / "config.json", error)) {  // no main: the only snapshot with a config
            snapshot.clear();
            for (fs::directory_iterator s(it->path() / "snapshots", error), s_end; !error && s != s_end; s.increment(error))
                if (fs::exists(s->path() / "config.json", error)) snapshot = snapshot.empty() ? s->path() : fs::path("-");
            if (snapshot == "-") snapshot.clear();
            error.clear();
        }
        if (snapshot.empty()) continue;
        CachedModel model;
        model.repo_id = repo_id;
        model.snapshot = snapshot.string();
        try {
            const nlohmann::json config = checkpoint::readConfigJson((snapshot / "config.json").string(), "model");
            if (config.contains("model_type") && config["model_type"].is_string()) model.model_type = config["model_type"];
            for (const char* key : {"torch_dtype", "dtype"})  // dtype wins, as transformers 5 reads it
                if (config.contains(key) && config[key].is_string()) model.dtype = config[key];
        } catch (const IoError&) {  // listed all the same: opening it says what is wrong
        }
        for (fs::directory_iterator f(snapshot, error), f_end; !error && f != f_end; f.increment(error))
            if (fs::is_regular_file(f->path(), error)) model.bytes += double(fs::file_size(f->path(), error));
        error.clear();
        models.push_back(model);
    }
    std::sort(models.begin(), models.end(), [](const CachedModel& a, const CachedModel& b) { return a.repo_id < b.repo_id; });
    return models;
}

}  // namespace headscope::io
