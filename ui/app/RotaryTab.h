#pragma once
// RoPE made visible in the window (issue 22 item 4): one RotaryDelta shared by the Circuits view,
// the spectra, the rank table and the "RoPE" tab's RotaryView (a registry view: the cell's logit
// against Delta, the frequency shares); their Delta sliders move together and follow the
// selected cell.

namespace headscope::ui {

class CircuitView;
class RankTableView;
class RotaryDelta;
class RotaryView;
class Session;
class SpectrumView;

// Makes the RotaryDelta, a child of the session (objectName "rotary_delta"), bound to it, and
// gives it to the views; rotary (the RoPE tab's view) may be nullptr.
RotaryDelta* shareRotaryDelta(Session* session, RotaryView* rotary, SpectrumView* spectrum, CircuitView* circuits,
                              RankTableView* ranks);

}  // namespace headscope::ui
