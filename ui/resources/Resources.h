#pragma once
// The icon, lessons and presets compiled into headscope_resources (resources/headscope.qrc). A static library's
// resources are dropped by the linker unless something references them: call this once
// before using ":/..." paths (MainWindow's constructor does; so does the GUI's main()).

namespace headscope::ui {

void initResources();

}  // namespace headscope::ui
