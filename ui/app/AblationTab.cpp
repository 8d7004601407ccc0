#include "AblationTab.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "AttributionView.h"
#include "FormWidgets.h"
#include "HeadMenus.h"
#include "ModelOverviewView.h"
#include "Session.h"
#include "TokenLogProbView.h"
#include "ViewRegistry.h"

namespace headscope::ui {

AblationTab::AblationTab(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("ablation_tab"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    strip_ = new TokenLogProbView(split);
    attribution_ = new AttributionView(split);
    split->addWidget(strip_);
    split->addWidget(attribution_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split);
    connect(session_, &Session::changed, this, &AblationTab::refresh);
    connect(session_, &Session::sourceChanged, this, &AblationTab::refresh);
    refresh();
}

void AblationTab::setOptions(const ViewOptions& options) {
    strip_->setOptions(options);
    attribution_->setOptions(options);
}

void AblationTab::refresh() {
    // Generated weights or a single layer: no model, no effects (the views say what to open).
    const auto effects = session_->source().model ? session_->effects() : nullptr;
    strip_->setEffects(effects);
    attribution_->setEffects(effects);
}

AblationTab* addAblationTab(Session* session, QTabWidget* tabs, HeadGridView* grid, ModelOverviewView* overview,
                            RankTableView* ranks) {
    auto* tab = new AblationTab(session, tabs);
    tabs->setTabToolTip(tabs->addTab(scrollable(tab), tabLabel("ablation")),
                        AblationTab::tr("What knocked-out heads cost a loaded model: each token's log-probability before "
                                        "and after, and each head's direct contribution to the predicted token's logit."));
    installHeadMenus(session, grid, overview, ranks, tab->attribution());
    if (overview)  // knocked-out heads framed in red and named "off" in the Model tab
        QObject::connect(session, &Session::changed, overview, [session, overview]() {
            overview->setAblation(session->trace() ? session->trace()->options.ablation : model::Ablation{});
        });
    return tab;
}

}  // namespace headscope::ui
