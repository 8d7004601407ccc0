#pragma once
// RoPE made visible in the window (issue 22 item 4): one RotaryDelta shared by the Circuits view,
// the spectra and the rank table (their Delta sliders move together and follow the selected
// cell), and the "RoPE" tab (RotaryView: the cell's logit against Delta, the frequency shares).

class QTabWidget;

namespace headscope::ui {

class CircuitView;
class RankTableView;
class RotaryView;
class Session;
class SpectrumView;

// Adds the tab (last) and returns its view; the RotaryDelta is a child of the session
// (objectName "rotary_delta").
RotaryView* addRotaryTab(Session* session, QTabWidget* tabs, SpectrumView* spectrum, CircuitView* circuits,
                         RankTableView* ranks);

}  // namespace headscope::ui
