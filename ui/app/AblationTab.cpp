#include "AblationTab.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "AttributionView.h"
#include "FittedLabel.h"
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
    empty_ = new QWidget(this);
    empty_->setObjectName(QStringLiteral("ablation_empty_state"));
    empty_text_ = new FittedLabel(empty_);  // one line: as many words as fit, never wider than the tab
    empty_text_->setObjectName(QStringLiteral("ablation_empty_text"));
    picker_ = new QComboBox(empty_);
    picker_->setObjectName(QStringLiteral("ablation_head_picker"));
    picker_->setToolTip(tr("The head to knock out: layer.head"));
    knock_out_ = new QPushButton(tr("Knock out"), empty_);
    knock_out_->setObjectName(QStringLiteral("ablation_knock_out"));
    knock_out_->setToolTip(tr("Set the chosen head's output to zero and compare (Edit > Undo brings it back)"));
    connect(knock_out_, &QPushButton::clicked, this, [this]() {
        const QStringList at = picker_->currentData().toString().split(QLatin1Char('.'));
        if (at.size() == 2) session_->knockOut(at[0].toInt(), at[1].toInt());
    });
    empty_text_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);  // the sentence ends beside what it asks for
    auto* line = new QHBoxLayout(empty_);
    line->addWidget(empty_text_, 1);
    line->addWidget(picker_);
    line->addWidget(knock_out_);
    layout->addWidget(empty_);
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
    // One line above says what is off and offers the layer's other heads: by number on a single
    // layer ("head 1"), by layer.head in a model ("head 0.1").
    const bool none_off = session_->ablation().empty();
    const bool can = session_->canAblate();
    QStringList names;  // the picker's data: layer.head of each head still on
    if (can) {
        const int layer = model ? session_->source().layer : 0;
        const int heads = model ? session_->source().model->config.n_head : session_->analysis()->weights().heads;
        for (int h = 0; h < heads; ++h)
            if (!session_->ablation().contains(layer, h)) names << QStringLiteral("%1.%2").arg(layer).arg(h);
    }
    empty_->setVisible(can && (none_off || !names.isEmpty()));
    picker_->setVisible(!names.isEmpty());
    knock_out_->setVisible(!names.isEmpty());
    if (none_off)
        empty_text_->setVariants({model ? tr("No head is knocked out: pick one to see what the model loses without it.")
                                        : tr("No head is knocked out: pick one to see how this layer's output changes."),
                                  tr("No head is knocked out: pick one"), tr("No head is off:")});
    else
        empty_text_->setVariants({tr("%1 knocked out; knock out another too:")
                                      .arg(session_->ablation().heads.size() == 1 ? tr("One head")
                                                                                  : tr("%1 heads").arg(session_->ablation().heads.size())),
                                  tr("Knock out another:"), tr("Another:")});
    QStringList shown;
    for (int i = 0; i < picker_->count(); ++i) shown << picker_->itemData(i).toString();
    if (shown != names) {
        const QString kept = picker_->currentData().toString();
        picker_->clear();
        for (const QString& name : names)
            picker_->addItem(tr("head %1").arg(model ? name : name.section(QLatin1Char('.'), 1)), name);
        picker_->setCurrentIndex(std::max(0, int(names.indexOf(kept))));
    }
    model_views_->setVisible(model);
    output_change_->setVisible(!model && !none_off);
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
