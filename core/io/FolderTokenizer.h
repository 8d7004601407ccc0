#pragma once
// The tokenizer of a Hugging Face model folder, whatever family it belongs to:
//   tokenizer.json            -> text::loadTokenizerJson (text/TokenizerJson.h)
//   vocab.json + merges.txt   -> text::Gpt2Tokenizer (byte-level BPE)
//   vocab.txt                 -> BERT's WordPiece, as BertTokenizerFast builds it (with
//                                tokenizer_config.json's do_lower_case and special tokens)
//   neither                   -> text::IdsOnlyTokenizer: the model reads ids, labelled by them
// IoError when the files are damaged, or when the tokenizer has ids beyond the model's vocab_size.

#include <memory>
#include <string>

#include "text/Tokenizer.h"

namespace headscope::io {

std::shared_ptr<const text::Tokenizer> loadFolderTokenizer(const std::string& directory, int vocab_size);

}  // namespace headscope::io
