#pragma once
// The bench's checkpoints (issues 22, 33, 34): random weights in the geometry of real models, written
// as Hugging Face folders (config.json, model.safetensors, and a byte-level BPE vocabulary for the
// decoders; the encoders read ids). `headscope-cli bench` times them; `bench --write-model NAME
// --model-dir DIR` writes one to keep, for `headscope --bench --model DIR` (the window on a real size).
//   gpt2_small       12 layers, d_model 768, 12 heads, vocabulary 50257, context 1024; F32
//   llama_1b         Llama 3.2 1B: 16 layers, d_model 2048, 32 heads on 8, head_dim 64, intermediate
//                    8192, vocabulary 128256, llama3 rope scaling, tied embeddings; BF16
//   qwen3_0.6b       28 layers, d_model 1024, 16 heads on 8, head_dim 128, q/k norms, vocabulary 151936; BF16
//   gemma3_1b        26 layers, d_model 1152, 4 heads on 1, head_dim 256, a window of 512 on 5 layers of
//                    6, vocabulary 262144; BF16
//   bert_base        12 layers, d_model 768, 12 heads, vocabulary 30522; F32
//   modernbert_base  22 layers, d_model 768, 12 heads, GeGLU of 1152, a band of 128 on two layers of
//                    three, vocabulary 50368; F32

#include <filesystem>
#include <string>
#include <vector>

namespace headscope::cli {

struct BenchGeometry {
    int layers, d, heads, kv_heads, head_dim, inner, vocab, context;
};

struct BenchCheckpoint {
    std::string name;   // as listed above
    std::string dtype;  // "F32" or "BF16"
    BenchGeometry geometry;
};

// Every checkpoint the bench writes, in the order above; `quick`: small geometries of the same shapes.
std::vector<BenchCheckpoint> benchCheckpoints(bool quick);

// The checkpoint called `name`; std::invalid_argument naming every checkpoint for any other name.
BenchCheckpoint benchCheckpoint(const std::string& name, bool quick);

// Writes checkpoint `name` into `dir` (created if missing); std::runtime_error if the disk refuses.
void writeBenchCheckpoint(const std::string& name, const std::filesystem::path& dir, bool quick);

}  // namespace headscope::cli
