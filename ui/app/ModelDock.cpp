#include "ModelDock.h"

#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "AblationList.h"
#include "FormWidgets.h"
#include "Session.h"
#include "TypesetText.h"
#include "TypesetToolTips.h"

namespace headscope::ui {
namespace {

// A path or name that may wrap in a narrow dock (2x fonts): a zero-width space after every
// '/', '_', '-' and '.' lets the label break there instead of widening the dock or being cut.
QString breakable(const QString& text) {
    QString out;
    for (const QChar c : text) {
        out += c;
        if (c == QLatin1Char('/') || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.')) out += QChar(0x200B);
    }
    return out;
}

}  // namespace

ModelDock::ModelDock(Session* session, QWidget* parent) : QDockWidget(tr("Loaded model"), parent), session_(session) {
    setObjectName(QStringLiteral("model_dock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    name_ = new QLabel(body);
    name_->setObjectName(QStringLiteral("model_name"));
    name_->setWordWrap(true);
    TypesetToolTips::setVerbatim(name_);  // its tool tip is the model's path or name
    layer_ = new QSpinBox(body);
    layer_->setObjectName(QStringLiteral("model_layer"));
    layer_->setToolTip(tr("The layer whose heads every view shows; the model overview shows them all."));
    auto* form = new QFormLayout;
    auto* layer_label = new QLabel(tr("&Layer"), body);
    layer_label->setBuddy(layer_);
    form->addRow(layer_label, layer_);
    next_ = new QListWidget(body);
    next_->setObjectName(QStringLiteral("next_tokens"));
    next_->setToolTip(tr("The model's most probable next tokens after the text, with their probabilities."));
    generated_ = new QPushButton(tr("Back to &generated weights"), body);
    generated_->setToolTip(tr("Close the model and show random weights generated from the controls again."));
    layout->addWidget(name_);
    layout->addLayout(form);
    next_label_ = new QLabel(tr("Next token:"), body);
    next_label_->setObjectName(QStringLiteral("next_tokens_label"));
    next_label_->setWordWrap(true);
    layout->addWidget(next_label_);
    layout->addWidget(next_, 1);
    layout->addWidget(new AblationList(session_, body));
    layout->addWidget(generated_);
    setWidget(scrollable(body));  // never wider or taller than a small screen leaves it

    connect(layer_, &QSpinBox::valueChanged, session_, &Session::setLayer);
    connect(generated_, &QPushButton::clicked, session_, &Session::useGeneratedWeights);
    connect(session_, &Session::sourceChanged, this, &ModelDock::refreshSource);
    connect(session_, &Session::changed, this, &ModelDock::refreshNextTokens);
    refreshSource();
}

void ModelDock::refreshSource() {
    const WeightSource& source = session_->source();
    const QSignalBlocker block(layer_);
    if (source.model) {
        const model::ModelConfig& c = source.model->config;
        name_->setText(tr("<b>%1</b> %2<br>%3 layers × %4 heads, %9 %5, %6 parameters (%7)<br>%8")
                           .arg(QString::fromStdString(c.familyName()))
                           .arg(breakable(QString::fromStdString(source.model->directory).toHtmlEscaped()))
                           .arg(c.n_layer).arg(c.n_head).arg(c.n_embd)
                           .arg(source.model->parameterCount()).arg(QString::fromStdString(source.model->dtype))
                           .arg(breakable(QString::fromStdString(model::describeArchitecture(*source.model)).toHtmlEscaped()))
                           .arg(typeset::lineHtml(QStringLiteral("d_model"))));  // typeset (issue 21)
        name_->setToolTip(QString::fromStdString(source.model->directory));  // the path whole, as written
        layer_->setRange(0, c.n_layer - 1);
        layer_->setValue(source.layer);
        layer_->setEnabled(true);
    } else if (source.loaded) {
        name_->setText(tr("<b>%1</b><br>%2 heads, %4 %3")
                           .arg(breakable(QString::fromStdString(source.loaded->name).toHtmlEscaped()))
                           .arg(source.loaded->weights.heads).arg(source.loaded->weights.dModel())
                           .arg(typeset::lineHtml(QStringLiteral("d_model"))));
        layer_->setRange(0, 0);
        layer_->setEnabled(false);
        name_->setToolTip(QString::fromStdString(source.loaded->name));
    } else {
        name_->setToolTip(QString());
        name_->setText(tr("Generated weights (random, untrained). Open a model directory (GPT-2, Llama, Mistral, Qwen2, GPT-NeoX) or a PyTorch "
                          "attention layer from the File menu."));
        layer_->setRange(0, 0);
        layer_->setEnabled(false);
    }
    generated_->setEnabled(!source.generated());
    refreshNextTokens();
}

void ModelDock::refreshNextTokens() {
    next_->clear();
    // A model without a tokenizer labels its tokens by their ids: the id once, not "274   (id 274)".
    const model::ModelPtr& m = session_->source().model;
    const bool ids_only = m && !m->tokenizer->encodesText();
    const auto item = [ids_only](const model::NextToken& t) {
        return ids_only ? QStringLiteral("%1   id %2").arg(QString::number(t.probability, 'f', 3)).arg(t.id)
                        : QStringLiteral("%1   %2   (id %3)")
                              .arg(QString::number(t.probability, 'f', 3), QString::fromStdString(t.token))
                              .arg(t.id);
    };
    if (!m || !m->config.encoder) {
        next_label_->setText(tr("Next token:"));
        next_->setToolTip(tr("The model's most probable next tokens after the text, with their probabilities."));
        for (const model::NextToken& t : session_->nextTokens()) next_->addItem(item(t));
        return;
    }
    // An encoder guesses masked tokens (fill-mask), not the next one: the top 10 at a single
    // mask; at several, each position's top 5 under its name.
    const std::vector<MaskedGuesses>& masked = session_->fillMask();
    QStringList positions;
    for (const MaskedGuesses& guesses : masked) positions << QString::number(guesses.position);
    if (masked.empty())
        next_label_->setText(ids_only ? tr("Fill-mask: without a tokenizer no id is known as the mask")
                                      : tr("Fill-mask: put %1 in the text")
                                            .arg(m->config.family == "roberta" ? QStringLiteral("<mask>") : QStringLiteral("[MASK]")));
    else
        next_label_->setText(masked.size() == 1 ? tr("Fill-mask at position %1:").arg(positions.front())
                                                : tr("Fill-mask at positions %1:").arg(positions.join(QStringLiteral(", "))));
    next_->setToolTip(tr("The model's most probable tokens at each masked position, with their probabilities."));
    for (const MaskedGuesses& guesses : masked) {
        if (masked.size() > 1) {
            auto* heading = new QListWidgetItem(tr("at position %1:").arg(guesses.position), next_);
            heading->setFlags(Qt::NoItemFlags);
            QFont bold = heading->font();
            bold.setBold(true);
            heading->setFont(bold);
            heading->setForeground(next_->palette().color(QPalette::Text));
        }
        const std::size_t shown = masked.size() > 1 ? std::min<std::size_t>(5, guesses.tokens.size()) : guesses.tokens.size();
        for (std::size_t i = 0; i < shown; ++i) next_->addItem(item(guesses.tokens[i]));
    }
}

}  // namespace headscope::ui
