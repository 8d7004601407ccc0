#pragma once
// Right-click a head to knock it out: the menus of the views that show heads (the heads grid,
// the Model tab's overview, the rank table, the attribution heatmap). Each offers "Knock out
// head L.H" (its output zeroed, or replaced by its mean over the input's positions) or "Restore
// head L.H"; on generated weights or a single loaded layer the head is named by its number and
// the Ablation tab shows how the layer's output changes. The views stay unaware of the Session.

class QMenu;

namespace headscope::ui {

class AttributionView;
class HeadGridView;
class ModelOverviewView;
class RankTableView;
class Session;

// The actions for head (layer, head) of the session's model, added to menu.
void addHeadActions(QMenu* menu, Session* session, int layer, int head);

// Gives each view (any may be null) a context menu of addHeadActions for the head under the
// mouse; the grid and the rank table show the session's current layer.
void installHeadMenus(Session* session, HeadGridView* grid, ModelOverviewView* overview, RankTableView* ranks,
                      AttributionView* attribution = nullptr);

}  // namespace headscope::ui
