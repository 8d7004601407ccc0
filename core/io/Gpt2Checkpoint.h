#pragma once
// Hugging Face GPT-2 directories (any GPT-2 family folder: gpt2, distilgpt2, your own):
//   config.json        n_layer, n_head, n_embd, n_positions (or n_ctx), vocab_size,
//                      layer_norm_epsilon (1e-5), activation_function (gelu_new),
//                      n_inner (4 n_embd), scale_attn_weights (true)
//   model.safetensors  wte.weight (vocab, d), wpe.weight (n_positions, d),
//                      h.{i}.ln_1.{weight,bias} (d), h.{i}.attn.c_attn.{weight (d, 3d), bias (3d)},
//                      h.{i}.attn.c_proj.{weight (d, d), bias (d)}, h.{i}.ln_2.*,
//                      h.{i}.mlp.c_fc.{weight (d, n_inner), bias}, h.{i}.mlp.c_proj.{weight (n_inner, d), bias},
//                      ln_f.{weight,bias}; every name with or without "transformer.";
//                      lm_head.weight (vocab, d) when untied (otherwise wte is reused);
//                      h.{i}.attn.bias / attn.masked_bias (mask buffers) are ignored.
//                      Conv1D layout (in, out); F32, F16 or BF16.
//   vocab.json, merges.txt   the byte-level BPE tokenizer (text/Gpt2Tokenizer.h)
// The safetensors file is memory-mapped: the MLP and embedding matrices are used where they are
// (F32) or converted when a layer is computed (F16/BF16); the attention matrices are converted
// tensor by tensor, releasing their mapped pages: peak memory is about the file's size.
// Every problem (missing file, wrong shape, lying header, unknown dtype, non-finite value,
// a config that disagrees with the tensors) is one IoError naming the file and the problem;
// shapes are checked against config.json before any tensor data is read.

#include <string>

#include "io/LoadProgress.h"
#include "model/Model.h"

namespace headscope::io {

// config.json alone (IoError for missing keys, bad values, unsupported options).
model::ModelConfig readGpt2Config(const std::string& config_json);

model::ModelPtr loadGpt2Checkpoint(const std::string& directory, const LoadProgress& progress = {});

}  // namespace headscope::io
