#pragma once
// The folders the tests read: tests/data (HEADSCOPE_TEST_DATA_DIR) and the trained checkpoints
// beside the project (HEADSCOPE_SHARED_MODELS_DIR, ../shared/models), where the program defines them.

#include <filesystem>

namespace headscope::test {

#ifdef HEADSCOPE_TEST_DATA_DIR
inline const std::filesystem::path kTestData = HEADSCOPE_TEST_DATA_DIR;
inline const std::filesystem::path kGpt2Cases = kTestData / "gpt2";      // tiny GPT-2 checkpoints, with references
inline const std::filesystem::path kRotaryCases = kTestData / "rotary";  // tiny rotary checkpoints, with references
inline const std::filesystem::path kTinyGpt2 = kGpt2Cases / "f32_prefix_tied";  // 2 layers, PyTorch's logits
#endif
#ifdef HEADSCOPE_SHARED_MODELS_DIR
inline const std::filesystem::path kSharedModels = HEADSCOPE_SHARED_MODELS_DIR;
#endif

}  // namespace headscope::test
