#pragma once
// A trained model as a Hugging Face GPT-2 folder, laid out as ../shared/models/induction:
//   config.json        model_type gpt2, GPT2LMHeadModel, n_layer, n_head, n_embd, n_positions
//                      (= n_ctx = the context), vocab_size, n_inner 4 d, gelu_new, eps 1e-5,
//                      tie_word_embeddings
//   model.safetensors  "transformer."-prefixed names in Conv1D (in, out) layout, F32,
//                      __metadata__ {"format": "pt"}; lm_head.weight when untied. An attention-only
//                      model gets ln_2 = identity (weight 1, bias 0) and all-zero MLP weights, so
//                      every GPT-2 reader computes exactly what it computed.
//   vocab.json, merges.txt   token id i is the printable character vocabularySymbol(i); no merges,
//                      so GPT-2's byte-level tokenizer reads each character as one token.
// io::loadGpt2Checkpoint opens it (and model::runModel gives the trainer's logits).

#include <Eigen/Core>
#include <string>

#include "train/Parameters.h"
#include "train/TrainConfig.h"

namespace headscope::train {

// The character of token id (0 <= id < TrainConfig::kMaxVocab): a-z, A-Z, 0-9, then ASCII
// punctuation. Each maps to itself in GPT-2's byte-to-unicode table.
char vocabularySymbol(int id);

// Writes the folder (created if absent; existing files of those names replaced). io::IoError
// with one sentence naming the file when it cannot be written.
void saveGpt2Folder(const TrainConfig& config, const ParameterLayout& layout,
                    const Eigen::Ref<const Eigen::VectorXf>& parameters, const std::string& directory);

}  // namespace headscope::train
