#pragma once
// The glue between a file's view settings (a session, a preset, a lesson step: io::ViewSettings)
// and the views' ViewOptions, beside ViewOptions so that the document reads and writes them
// without the resources library.

#include "ViewOptions.h"
#include "io/SessionFile.h"

namespace headscope::ui {

// options with the settings a file carries applied; and the settings of options.
ViewOptions applyViewSettings(ViewOptions options, const io::ViewSettings& settings);
io::ViewSettings viewSettings(const ViewOptions& options);

}  // namespace headscope::ui
