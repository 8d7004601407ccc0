#include "RotaryTab.h"

#include "CircuitView.h"
#include "RankTableView.h"
#include "RotaryDelta.h"
#include "RotaryView.h"
#include "SpectrumView.h"
#include "ViewBinding.h"

namespace headscope::ui {

RotaryDelta* shareRotaryDelta(Session* session, RotaryView* rotary, SpectrumView* spectrum, CircuitView* circuits,
                              RankTableView* ranks) {
    auto* delta = new RotaryDelta(session);
    delta->setResultStore(session->results());
    delta->setObjectName(QStringLiteral("rotary_delta"));
    bindView(session, delta);  // follows the analysis, the head and the cell
    spectrum->setRotaryDelta(delta);
    circuits->setRotaryDelta(delta);
    ranks->setRotaryDelta(delta);
    if (rotary) rotary->setRotaryDelta(delta);
    return delta;
}

}  // namespace headscope::ui
