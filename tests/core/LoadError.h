#pragma once
// The one-line message io::loadCheckpoint gives for a folder, or "(no error)" when it opens.

#include <filesystem>
#include <string>

#include "io/Checkpoint.h"
#include "io/IoError.h"

namespace headscope::test_support {

inline std::string loadError(const std::filesystem::path& folder) {
    try {
        io::loadCheckpoint(folder.string());
    } catch (const io::IoError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace headscope::test_support
