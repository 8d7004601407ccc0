#include "FormWidgets.h"

#include <QAbstractTextDocumentLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFontMetrics>
#include <QFormLayout>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QShortcut>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionButton>
#include <QStyleOptionComboBox>
#include <QStyleOptionFocusRect>
#include <QTextDocument>
#include <cmath>

#include "TypesetText.h"

namespace headscope::ui {

namespace {

constexpr const char* kFullText = "headscope_full_text";

int textWidth(const QFontMetrics& fm, QString text) {
    text.remove(QLatin1Char('&'));
    return fm.horizontalAdvance(text);
}

// Re-breaks a check box's text whenever its width or font changes.
class CheckTextWrapper : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize || event->type() == QEvent::FontChange) {
            auto* box = static_cast<QCheckBox*>(watched);
            const QStyle* style = box->style();
            const int room = box->width() - style->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, box) -
                             style->pixelMetric(QStyle::PM_CheckBoxLabelSpacing, nullptr, box) - 4;
            const QString text = wrapText(box->property(kFullText).toString(), box->fontMetrics(), room);
            if (text != box->text()) box->setText(text);
        }
        if (event->type() == QEvent::Paint && typeset::hasNotation(QString(static_cast<QCheckBox*>(watched)->text()).remove(QLatin1Char('&'))))
            return paintTypeset(static_cast<QCheckBox*>(watched));
        return false;
    }

private:
    // The box as the style draws it without its text, then the text typeset ("d_k" with its
    // subscript, issue 21), its mnemonic underlined; text() stays the notation (the Alt key,
    // the accessible name).
    static bool paintTypeset(QCheckBox* box) {
        QStyleOptionButton option;
        option.initFrom(box);
        option.state |= box->isChecked() ? QStyle::State_On : QStyle::State_Off;
        if (box->isDown()) option.state |= QStyle::State_Sunken;
        QPainter painter(box);
        box->style()->drawControl(QStyle::CE_CheckBox, &option, &painter, box);
        QStringList lines;
        for (const QString& line : box->text().split(QLatin1Char('\n'))) lines << typeset::mnemonicRichText(line);
        QTextDocument doc;
        doc.setDocumentMargin(0);
        doc.setDefaultFont(box->font());
        doc.setHtml(lines.join(QStringLiteral("<br>")));
        const QRect room = box->style()->subElementRect(QStyle::SE_CheckBoxContents, &option, box);
        const double top = room.center().y() + 0.5 - doc.size().height() / 2;
        if (option.state & QStyle::State_HasFocus) {  // the keyboard focus around the text, as the style draws it
            QStyleOptionFocusRect focus;
            focus.initFrom(box);
            focus.rect = QRect(room.left(), int(top), int(std::ceil(doc.idealWidth())) + 2, int(std::ceil(doc.size().height())));
            box->style()->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, &painter, box);
        }
        painter.translate(room.left() + 1, top);
        QAbstractTextDocumentLayout::PaintContext context;
        context.palette.setColor(QPalette::Text, box->palette().color(box->isEnabled() ? QPalette::Active : QPalette::Disabled,
                                                                      QPalette::WindowText));
        doc.documentLayout()->draw(&painter, context);
        return true;
    }
};

}  // namespace

QString wrapText(const QString& text, const QFontMetrics& fm, int width) {
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && textWidth(fm, longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    lines << line;
    return lines.join(QLatin1Char('\n'));
}

QSpinBox* makeSpin(QWidget* parent, const char* name, int lo, int hi, const QString& tip) {
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(QLatin1String(name));
    spin->setRange(lo, hi);
    spin->setKeyboardTracking(false);  // typed numbers apply on Enter / Tab, arrows at once
    spin->setAccelerated(true);
    spin->setToolTip(tip);
    return spin;
}

QCheckBox* makeCheck(QWidget* parent, const char* name, const QString& text, const QString& tip) {
    auto* box = new QCheckBox(text, parent);
    box->setObjectName(QLatin1String(name));
    box->setToolTip(tip);
    box->setAccessibleName(QString(text).remove(QLatin1Char('&')));
    box->setProperty(kFullText, text);
    // Any width the layout offers; the text breaks into lines to fit it.
    box->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    box->installEventFilter(new CheckTextWrapper(box));
    return box;
}

QPlainTextEdit* makeTextEdit(QWidget* parent, const char* name, int lines, const QString& tip) {
    auto* edit = new QPlainTextEdit(parent);
    edit->setObjectName(QLatin1String(name));
    edit->setTabChangesFocus(true);  // Tab leaves the box: keyboard users are not trapped
    edit->setToolTip(tip);
    edit->setProperty("headscope_lines", lines);
    return edit;
}

void keepNarrow(QComboBox* combo) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
}

void fitShownItem(QComboBox* combo) {
    QStyleOptionComboBox option;
    option.initFrom(combo);
    const QSize text(combo->fontMetrics().horizontalAdvance(combo->currentText()) + 8, combo->fontMetrics().height());
    combo->setMinimumWidth(combo->style()->sizeFromContents(QStyle::CT_ComboBox, &option, text, combo).width());
}

QLabel* makeTypesetLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(parent);
    typeset::setLabelText(label, text);
    return label;
}

void addRow(QFormLayout* form, const QString& label, QWidget* field, QWidget* buddy) {
    QWidget* target = buddy ? buddy : field;
    auto* text = new QLabel(label);
    text->setBuddy(target);
    text->setToolTip(target->toolTip());
    if (typeset::hasNotation(QString(label).remove(QLatin1Char('&')))) {
        // "d_&model" typeset (issue 21), m underlined. Rich text has no mnemonic of its own:
        // the same Alt key focuses the field as the label's would.
        text->setTextFormat(Qt::RichText);
        text->setText(typeset::mnemonicRichText(label));
        text->setAccessibleName(QString(label).remove(QLatin1Char('&')));
        auto* key = new QShortcut(QKeySequence::mnemonic(label), text);
        key->setObjectName(QStringLiteral("mnemonic"));
        QObject::connect(key, &QShortcut::activated, target, [target]() { target->setFocus(Qt::ShortcutFocusReason); });
    }
    form->addRow(text, field);
}

QWidget* scrollable(QWidget* page) {
    auto* area = new QScrollArea;
    area->setObjectName(page->objectName() + QStringLiteral("_scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(page);
    return area;
}

}  // namespace headscope::ui
