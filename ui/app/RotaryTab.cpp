#include "RotaryTab.h"

#include <QTabWidget>

#include "CircuitView.h"
#include "FormWidgets.h"
#include "RankTableView.h"
#include "RotaryDelta.h"
#include "RotaryView.h"
#include "SpectrumView.h"
#include "ViewBinding.h"

namespace headscope::ui {

RotaryView* addRotaryTab(Session* session, QTabWidget* tabs, SpectrumView* spectrum, CircuitView* circuits,
                         RankTableView* ranks) {
    auto* delta = new RotaryDelta(session);
    delta->setResultStore(session->results());
    delta->setObjectName(QStringLiteral("rotary_delta"));
    bindView(session, delta);  // follows the analysis, the head and the cell
    spectrum->setRotaryDelta(delta);
    circuits->setRotaryDelta(delta);
    ranks->setRotaryDelta(delta);
    auto* view = new RotaryView(tabs);
    view->setObjectName(QStringLiteral("rotary_view"));
    view->setRotaryDelta(delta);
    view->setResultStore(session->results());
    bindView(session, view);
    tabs->setTabToolTip(tabs->addTab(scrollable(view), RotaryView::tr("&RoPE")),
                        RotaryView::tr("Rotary layers: the selected cell's logit against the distance Δ = j − i, and "
                                       "how much of each head's W_Q W_Kᵀ lives in each rotary frequency."));
    return view;
}

}  // namespace headscope::ui
