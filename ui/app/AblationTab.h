#pragma once
// The Ablation tab: what the heads knocked out cost a loaded model. Above, each actual next
// token's log-probability before and after (TokenLogProbView) with the loss change; below, each
// head's direct contribution to the predicted token's logit (AttributionView). Both read the
// Session's effects(), computed on its worker; right-click a head in the heatmap to knock it out (HeadMenus).

#include <QWidget>

class QTabWidget;

namespace headscope::ui {

class AttributionView;
class HeadGridView;
class ModelOverviewView;
class RankTableView;
class Session;
class TokenLogProbView;
struct ViewOptions;

class AblationTab : public QWidget {
    Q_OBJECT

public:
    AblationTab(Session* session, QWidget* parent = nullptr);

    void setOptions(const ViewOptions& options);
    TokenLogProbView* strip() const { return strip_; }
    AttributionView* attribution() const { return attribution_; }

private:
    void refresh();

    Session* session_;
    TokenLogProbView* strip_ = nullptr;
    AttributionView* attribution_ = nullptr;
};

// Adds the tab (last, "Ablation") and gives the heads grid, the overview, the rank table and the
// tab's heatmap their "Knock out head L.H" menus (HeadMenus.h).
AblationTab* addAblationTab(Session* session, QTabWidget* tabs, HeadGridView* grid, ModelOverviewView* overview,
                            RankTableView* ranks);

}  // namespace headscope::ui
