#include "io/Checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "io/CheckpointFiles.h"
#include "io/EncoderFamily.h"
#include "io/Gpt2Checkpoint.h"
#include "io/HubCache.h"
#include "io/IoError.h"
#include "io/LlamaFamily.h"
#include "io/Quote.h"

namespace headscope::io {

namespace fs = std::filesystem;

namespace {

model::ModelPtr loadFamily(const std::string& given, const LoadProgress& progress) {
    std::error_code error;
    const std::string path = resolveModelPath(given);  // a repo id: its snapshot in the Hugging Face cache
    std::string directory = path;
    if (fs::is_regular_file(path, error) && fs::path(path).filename() == "config.json")
        directory = fs::path(path).has_parent_path() ? fs::path(path).parent_path().string() : fs::current_path().string();
    if (!fs::exists(directory, error))
        throw IoError("cannot open checkpoint '" + directory + "': the directory does not exist");
    if (!fs::is_directory(directory, error))
        throw IoError("cannot open checkpoint '" + directory +
                      "': it is not a directory (give the folder holding config.json and the weights)");
    const std::string config_path = (fs::path(directory) / "config.json").string();
    if (!fs::exists(config_path, error))
        throw IoError("cannot open checkpoint '" + directory + "': it has no config.json");
    const nlohmann::json config = checkpoint::readConfigJson(config_path, "model");
    if (!config.contains("model_type") || config["model_type"] == "gpt2") return loadGpt2Checkpoint(directory, progress);
    const nlohmann::json& type = config["model_type"];
    const std::vector<std::string>& llama_like = llamaFamilyTypes();
    if (type.is_string() && std::find(llama_like.begin(), llama_like.end(), type.get<std::string>()) != llama_like.end())
        return loadLlamaCheckpoint(directory, progress);
    if (type == "gpt_neox") return loadNeoxCheckpoint(directory, progress);
    const std::vector<std::string>& encoders = encoderFamilyTypes();
    if (type.is_string() && std::find(encoders.begin(), encoders.end(), type.get<std::string>()) != encoders.end())
        return loadEncoderCheckpoint(directory, progress);
    std::string supported = "gpt2";
    for (const std::string& t : llama_like) supported += ", " + t;
    supported += ", gpt_neox";
    for (const std::string& t : encoders) supported += ", " + t;
    throw IoError("cannot open checkpoint '" + directory + "': its model_type " + quote(type.is_string() ? type.get<std::string>() : type.dump(), 40) +
                  " is not supported (supported: " + supported + ")");
}

}  // namespace

model::ModelPtr loadCheckpoint(const std::string& path, const LoadProgress& progress, int cache_layers) {
    if (cache_layers < 0)
        throw std::invalid_argument("the layers kept converted (--cache-layers, or the setting model/cache_layers) must be 0 or more, not " +
                                    std::to_string(cache_layers));
    model::ModelPtr m = loadFamily(path, progress);
    if (m->conversion_cache) m->conversion_cache->setCapacity(cache_layers);  // nothing is held yet
    return m;
}

}  // namespace headscope::io
