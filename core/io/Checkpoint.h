#pragma once
// Opening any supported Hugging Face model folder: config.json's "model_type" picks the loader.
//   gpt2 (or no model_type)     io/Gpt2Checkpoint.h
//   llama, mistral, qwen2       io/LlamaCheckpoint.cpp: RoPE (rope_theta, rope_scaling "llama3"),
//                               grouped-query attention, RMSNorm, SwiGLU, q/k/v biases (Qwen2)
//   gpt_neox                    io/NeoxCheckpoint.cpp: fused per-head query_key_value, partial
//                               rotary (rotary_pct), parallel residual, LayerNorm, GELU
// Weights: model.safetensors or the shards of model.safetensors.index.json, F32, F16 or BF16,
// names with or without the family's prefix (io/CheckpointFiles.h). Tokenizer:
// io/FolderTokenizer.h. Every problem is one IoError naming the file and the problem.

#include <string>

#include "io/LoadProgress.h"
#include "model/Model.h"

namespace headscope::io {

// `path` is the folder or its config.json. `progress` (optional) hears every stage and may cancel
// (io/LoadProgress.h). `cache_layers`: how many layers of F16/BF16 weights stay converted (the
// model's ConversionCache, model/LinearWeight.h; 0: every layer converted each time it is used);
// std::invalid_argument when negative. F32 models have no cache and ignore it.
model::ModelPtr loadCheckpoint(const std::string& path, const LoadProgress& progress = {},
                               int cache_layers = model::ConversionCache::kDefaultLayers);

// The families behind it, for tests and tools that know what they open.
model::ModelConfig readLlamaConfig(const std::string& config_json);
model::ModelPtr loadLlamaCheckpoint(const std::string& directory, const LoadProgress& progress = {});
model::ModelConfig readNeoxConfig(const std::string& config_json);
model::ModelPtr loadNeoxCheckpoint(const std::string& directory, const LoadProgress& progress = {});

}  // namespace headscope::io
