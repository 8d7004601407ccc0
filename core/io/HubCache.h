#pragma once
// Models in the local Hugging Face cache, named by repo id ("Qwen/Qwen3-0.6B"), offline, in
// huggingface_hub's layout (file_download.py, constants.py):
//   <cache>/models--Qwen--Qwen3-0.6B/refs/main            the commit the branch points at
//   <cache>/models--Qwen--Qwen3-0.6B/snapshots/<commit>/  config.json ... as symbolic links
//   <cache>/models--Qwen--Qwen3-0.6B/blobs/<hash>         the files' bytes
// where <cache> is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.

#include <string>
#include <vector>

namespace headscope::io {

std::string hubCacheDirectory();

// "owner/name": one '/', letters, digits, '-', '_' and '.', and not a path on disk.
bool looksLikeRepoId(const std::string& text);

// The folder to open for `path_or_repo_id`: a path that exists is itself; a repo id is its
// snapshot for `revision` (a branch or tag under refs/, or a commit; "" means main). IoError
// in one sentence naming where it looked when the repo or the revision is not in the cache, or
// when a revision is given with a folder on disk. Anything else is returned unchanged (the
// loader then says it does not exist).
std::string resolveModelPath(const std::string& path_or_repo_id, const std::string& revision = "");

struct CachedModel {
    std::string repo_id;     // "Qwen/Qwen3-0.6B"
    std::string snapshot;    // the folder of refs/main's snapshot (or of the only snapshot)
    std::string model_type;  // config.json's, "" when unreadable
    std::string dtype;       // config.json's dtype or torch_dtype, "" when absent
    double bytes = 0;        // of the snapshot's files (what their links point at)
};
// Every model repo of the cache that has a snapshot with a config.json, by repo id.
std::vector<CachedModel> cachedModels();

}  // namespace headscope::io
