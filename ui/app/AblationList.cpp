#include "AblationList.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "Session.h"

namespace headscope::ui {

AblationList::AblationList(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("ablation_list"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    list_ = new QListWidget(this);
    list_->setObjectName(QStringLiteral("ablated_heads"));
    list_->setToolTip(tr("Click a head to restore it."));
    list_->setMaximumHeight(list_->fontMetrics().height() * 6);
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("ablation_mode"));
    mode_->addItem(tr("zero: the head writes nothing"), static_cast<int>(model::AblationMode::Zero));
    mode_->addItem(tr("mean: its mean output over the tokens"), static_cast<int>(model::AblationMode::Mean));
    mode_->setToolTip(tr("How a knocked-out head is replaced, for every head that is off."));
    // Elided to the dock's width (2x fonts): the whole item shows in the open list.
    mode_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    mode_->setMinimumContentsLength(8);
    restore_all_ = new QPushButton(tr("&Restore all heads"), this);
    restore_all_->setObjectName(QStringLiteral("restore_all"));
    layout->addWidget(new QLabel(tr("Heads knocked out:"), this));
    layout->addWidget(note_);
    layout->addWidget(list_);
    layout->addWidget(mode_);
    layout->addWidget(restore_all_);

    connect(list_, &QListWidget::itemClicked, session_, [this](QListWidgetItem* item) {
        session_->restore(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
    });
    connect(mode_, &QComboBox::currentIndexChanged, session_, [this](int index) {
        session_->setAblationMode(static_cast<model::AblationMode>(mode_->itemData(index).toInt()));
    });
    connect(restore_all_, &QPushButton::clicked, session_, &Session::restoreAll);
    connect(session_, &Session::ablationChanged, this, &AblationList::refresh);
    connect(session_, &Session::sourceChanged, this, &AblationList::refresh);
    refresh();
}

void AblationList::refresh() {
    const model::Ablation& a = session_->ablation();
    const bool can = session_->canAblate();
    list_->clear();
    for (const model::HeadRef& h : a.heads) {
        const QString name = session_->source().model ? QStringLiteral("%1.%2").arg(h.layer).arg(h.head) : QString::number(h.head);
        auto* item = new QListWidgetItem(tr("head %1   ✕ restore").arg(name), list_);
        item->setData(Qt::UserRole, h.layer);
        item->setData(Qt::UserRole + 1, h.head);
    }
    note_->setText(!can ? tr("Knocking heads out needs weights: wait for the first update.")
                   : a.empty() ? tr("None. Right-click a head (Heads, Model or Ablation tab, rank table) to knock it out.")
                               : QString());
    note_->setVisible(!note_->text().isEmpty());
    list_->setVisible(can && !a.empty());
    const QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(static_cast<int>(a.mode)));
    mode_->setEnabled(can);
    restore_all_->setEnabled(can && !a.empty());
}

}  // namespace headscope::ui
