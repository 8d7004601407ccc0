#include "NoModelNote.h"

#include <QAction>
#include <QLabel>
#include <QVBoxLayout>

#include "Heatmap.h"

namespace headscope::ui {

namespace {

// `<a href="id">Open model (Hugging Face folder)…</a> (Ctrl+M)`: the action's words, its shortcut.
QString link(const QAction* action, const QString& id) {
    QString text = action->text();
    text.remove(QLatin1Char('&'));
    const QString keys = action->shortcut().toString(QKeySequence::NativeText);
    const QString anchor = QStringLiteral("<a href=\"%1\">%2</a>").arg(id, text.toHtmlEscaped());
    return keys.isEmpty() ? anchor : QStringLiteral("%1&nbsp;(%2)").arg(anchor, keys.toHtmlEscaped());
}

}  // namespace

NoModelNote::NoModelNote(const QString& sentence, QWidget* parent) : QWidget(parent), asking_(sentence) {
    setObjectName(QStringLiteral("no_model_note"));
    sentence_ = new QLabel(sentence, this);
    sentence_->setObjectName(QStringLiteral("no_model_sentence"));
    links_ = new QLabel(this);
    links_->setObjectName(QStringLiteral("no_model_links"));
    links_->setTextFormat(Qt::RichText);
    links_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    links_->hide();
    for (QLabel* label : {sentence_, links_}) {
        label->setWordWrap(true);
        label->setAlignment(Qt::AlignCenter);
    }
    connect(links_, &QLabel::linkActivated, this, [this](const QString& id) {
        if (QAction* action = id == QLatin1String("folder") ? folder_ : id == QLatin1String("cache") ? cache_ : nullptr)
            action->trigger();
    });
    auto* column = new QVBoxLayout(this);
    column->addStretch(1);
    column->addWidget(sentence_);
    column->addSpacing(12);
    column->addWidget(links_);
    column->addStretch(2);
    setFontScale(1.0);
}

void NoModelNote::setOpenActions(QAction* folder, QAction* cache) {
    folder_ = folder;
    cache_ = cache;
    QStringList links;
    if (folder) links << link(folder, QStringLiteral("folder"));
    if (cache) links << link(cache, QStringLiteral("cache"));
    links_->setText(links.join(QStringLiteral("<br>")));
    links_->setVisible(!links.isEmpty() && !model_open_);
}

void NoModelNote::setModelOpen(bool open) {
    model_open_ = open;
    sentence_->setText(open ? tr("A model is open: its heads appear here once a text has run on it") : asking_);
    links_->setVisible(!links_->text().isEmpty() && !open);
}

void NoModelNote::setFontScale(double scale) {
    sentence_->setFont(heatmap::font(12, scale, true));
    links_->setFont(heatmap::font(10, scale));
}

}  // namespace headscope::ui
