#pragma once
// The masked-language-model encoders the loader opens (io/EncoderConfig.cpp reads their
// config.json, io/EncoderCheckpoint.cpp their tensors): bert, roberta, distilbert, modernbert.
// For core/ sources only.

#include <string>
#include <vector>

namespace headscope::io {

// In the order error messages list them.
const std::vector<std::string>& encoderFamilyTypes();

}  // namespace headscope::io
