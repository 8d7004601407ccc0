#pragma once
// The Ablation tab: what the heads knocked out cost. A loaded model: above, each actual next
// token's log-probability before and after (TokenLogProbView) with the loss change; below, each
// head's direct contribution to the predicted token's logit (AttributionView); both read the
// Session's effects(), computed on its worker; right-click a head in the heatmap to knock it out
// (HeadMenus). Generated weights or a loaded layer (no next token): how the layer's output
// changes per token (OutputChangeView, from the Session's layerAblation()).
// One line above says whether heads are off (in fewer words where narrow) and offers the layer's other heads to knock
// out right there (a picker and a button); a single layer's empty output view gives its room to that line.

#include <QWidget>

class QComboBox;
class QPushButton;
class QTabWidget;

namespace headscope::ui {

class AttributionView;
class FittedLabel;
class HeadGridView;
class ModelOverviewView;
class OutputChangeView;
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
    OutputChangeView* outputChange() const { return output_change_; }
    // The line above: shown while a head of the layer shown is still on; the picker's data names
    // those heads as layer.head ("1.1"), its text as a model's "head 1.1" or a single layer's "head 1".
    QWidget* emptyState() const { return empty_; }
    QComboBox* headPicker() const { return picker_; }
    QPushButton* knockOutButton() const { return knock_out_; }

private:
    void refresh();

    Session* session_;
    TokenLogProbView* strip_ = nullptr;
    AttributionView* attribution_ = nullptr;
    QWidget* model_views_ = nullptr;  // the strip and the attribution, shown with a model
    OutputChangeView* output_change_ = nullptr;  // shown for a single layer
    QWidget* empty_ = nullptr;
    FittedLabel* empty_text_ = nullptr;
    QComboBox* picker_ = nullptr;
    QPushButton* knock_out_ = nullptr;
};

// Adds the tab (last, "Ablation") and gives the heads grid, the overview, the rank table and the
// tab's heatmap their "Knock out head L.H" menus (HeadMenus.h).
AblationTab* addAblationTab(Session* session, QTabWidget* tabs, HeadGridView* grid, ModelOverviewView* overview,
                            RankTableView* ranks);

}  // namespace headscope::ui
