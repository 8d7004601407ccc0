#include "AblationTab.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "AttributionView.h"
#include "FormWidgets.h"
#include "HeadMenus.h"
#include "HeadGridView.h"
#include "ModelOverviewView.h"
#include "OutputChangeView.h"
#include "RankTableView.h"
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
    model_views_ = split;
    output_change_ = new OutputChangeView(this);
    layout->addWidget(output_change_);
    connect(session_, &Session::changed, this, &AblationTab::refresh);
    connect(session_, &Session::sourceChanged, this, &AblationTab::refresh);
    refresh();
}

void AblationTab::setOptions(const ViewOptions& options) {
    strip_->setOptions(options);
    attribution_->setOptions(options);
    output_change_->setOptions(options);
}

void AblationTab::refresh() {
    // Generated weights or a single layer: no model, no effects (the views say what to open).
    const bool model = session_->source().model != nullptr;
    const auto effects = model ? session_->effects() : nullptr;
    strip_->setEffects(effects);
    attribution_->setEffects(effects);
    // A single layer: its output before and after, the tokens named as in the heads grid.
    QStringList tokens;
    if (!model && session_->analysis())
        for (const std::string& t : session_->analysis()->input.query.tokens) tokens << QString::fromStdString(t);
    output_change_->setAblation(model ? nullptr : session_->layerAblation(), tokens);
    model_views_->setVisible(model);
    output_change_->setVisible(!model);
}

AblationTab* addAblationTab(Session* session, QTabWidget* tabs, HeadGridView* grid, ModelOverviewView* overview,
                            RankTableView* ranks) {
    auto* tab = new AblationTab(session, tabs);
    tabs->addTab(scrollable(tab), tabLabel("ablation"));  // its tool tip: the registry's
    installHeadMenus(session, grid, overview, ranks, tab->attribution());
    if (overview)  // knocked-out heads framed in red and named "off" in the Model tab
        QObject::connect(session, &Session::changed, overview, [session, overview]() {
            overview->setAblation(session->trace() ? session->trace()->options.ablation : model::Ablation{});
        });
    // The heads grid and the rank table mark the heads off in the layer they show.
    QObject::connect(session, &Session::changed, tab, [session, grid, ranks]() {
        const auto analysis = session->analysis();
        std::vector<bool> off(analysis ? std::size_t(analysis->weights().heads) : 0, false);
        for (const model::HeadRef& h : session->ablation().heads)
            if (h.layer == session->source().layer && h.head < int(off.size())) off[std::size_t(h.head)] = true;
        if (grid) grid->setHeadsOff(off);
        if (ranks) ranks->setHeadsOff(off);
    });
    return tab;
}

}  // namespace headscope::ui
