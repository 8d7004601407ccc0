#pragma once
// Opening any supported Hugging Face model folder, or a repo id in the local Hugging Face cache
// (io/HubCache.h): config.json's "model_type" picks the loader.
//   gpt2 (or no model_type)     io/Gpt2Checkpoint.h
//   llama, mistral, qwen2, qwen3, smollm3, olmo2, gemma2, gemma3_text, gemma3, phi3
//                               io/LlamaCheckpoint.cpp (what each family changes: io/LlamaFamily.h;
//                               config.json in transformers 4's and 5's keys: io/LlamaConfig.cpp)
//   gpt_neox                    io/NeoxCheckpoint.cpp: fused per-head query_key_value, partial
//                               rotary, parallel residual, LayerNorm, GELU
//   bert, roberta, distilbert, modernbert
//                               io/EncoderCheckpoint.cpp (config.json: io/EncoderConfig.cpp):
//                               masked-LM encoders, attention in both directions
// The rotation's keys in both forms: io/RopeConfig.h. Weights: model.safetensors or the shards
// of model.safetensors.index.json, F32, F16 or BF16, names with or without the family's prefix
// (io/CheckpointFiles.h). Tokenizer: io/FolderTokenizer.h (none: the model reads ids). Every
// problem is one IoError naming the file and the problem.

#include <string>

#include "io/LoadProgress.h"
#include "model/Model.h"

namespace headscope::io {

// `path` is the folder, its config.json or a repo id in the Hugging Face cache. `progress` (optional) hears every stage and may cancel
// (io/LoadProgress.h). `cache_layers`: how many layers of F16/BF16 weights stay converted (the
// model's ConversionCache, model/LinearWeight.h; 0: every layer converted each time it is used);
// std::invalid_argument when negative. F32 models have no cache and ignore it.
model::ModelPtr loadCheckpoint(const std::string& path, const LoadProgress& progress = {},
                               int cache_layers = model::ConversionCache::kDefaultLayers);

// The families behind it, for tests and tools that know what they open.
model::ModelConfig readLlamaConfig(const std::string& config_json);
model::ModelPtr loadLlamaCheckpoint(const std::string& directory, const LoadProgress& progress = {});
model::ModelConfig readNeoxConfig(const std::string& config_json);
model::ModelConfig readEncoderConfig(const std::string& config_json);
model::ModelPtr loadEncoderCheckpoint(const std::string& directory, const LoadProgress& progress = {});
model::ModelPtr loadNeoxCheckpoint(const std::string& directory, const LoadProgress& progress = {});

}  // namespace headscope::io
