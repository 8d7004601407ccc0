#pragma once
// A dock without its title bar: a lesson strip, or the spectra shown alone above one (issue 21:
// at 1024 x 768, 2x, the bar's 19 px go to the text). Hidden means an empty title bar widget, as
// QDockWidget documents; shown again, Qt's own bar comes back.

class QDockWidget;

namespace headscope::ui {

void setDockTitleBarHidden(QDockWidget* dock, bool hidden);

}  // namespace headscope::ui
